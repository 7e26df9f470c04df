/** The `homeassistant` settings: MQTT discovery for Home Assistant (`homeassistant/`), off unless `discovery: true`. */
import { hash } from 'node:crypto';
import { z } from 'zod';

/**
 * An id as Home Assistant takes it (a discovery topic's node id): the readable part, and a hash of the
 * exact parts. Here so that the Mosquitto ACL (mosquittoAcl.ts) names the same nodes discovery writes.
 */
export function haId(...parts: string[]): string {
  const readable = parts.join('_').replace(/[^A-Za-z0-9_-]/g, '_');
  return `${readable}_${hash('sha256', parts.join('\u0000'), 'hex').slice(0, 8)}`;
}

export const homeAssistantSchema = z
  .strictObject({
    discovery: z
      .boolean()
      .default(false)
      .describe('Publish Home Assistant MQTT discovery configs and the states they read (retained).'),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'topic levels of letters, digits, _ and -')
      .default('homeassistant')
      .describe("Home Assistant's discovery prefix (its MQTT integration's setting)."),
    publishSeconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(60)
      .describe("A device's state is published when it changed, at most this often."),
  })
  .prefault({})
  .describe('Home Assistant MQTT discovery (docs/integrations.md).');
export type HomeAssistantConfig = z.infer<typeof homeAssistantSchema>;
