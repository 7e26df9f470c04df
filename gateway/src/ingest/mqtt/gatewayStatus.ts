/** The gateway's own status on `gateway/{gatewayId}/status`, retained: online while it runs, offline after. */

/** The payload announcing the gateway `online` or `offline` at `at` (epoch ms). */
export function gatewayStatusPayload(status: 'online' | 'offline', at: number): string {
  return JSON.stringify({ status, ts: new Date(at).toISOString() });
}

/** How the gateway status is published: QoS 1, retained. */
export const GATEWAY_STATUS_PUBLISH = { qos: 1, retain: true } as const;
