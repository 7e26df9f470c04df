/**
 * The gateway's health: every stage's own report, in start order, the overall status, and which optional
 * parts work (capabilities.ts).
 */
import type { Capability } from '../../shared/src/api/system.ts';
import type { HealthReport } from './api/context.ts';
import type { ComponentHealth, Stage } from './pipeline.ts';

export function healthReport(
  stages: ReadonlyArray<Pick<Stage<never[]>, 'health'>>,
  meta: { gatewayId: string; startedAt: number; now: number },
  capabilities: (components: readonly ComponentHealth[]) => Capability[] = () => [],
): HealthReport {
  const components: ComponentHealth[] = [];
  for (const s of stages) {
    const h = s.health();
    components.push(...(Array.isArray(h) ? h : [h]));
  }
  return {
    status: components.every((c) => c.ok) ? 'ok' : 'degraded',
    gatewayId: meta.gatewayId,
    startedAt: new Date(meta.startedAt).toISOString(),
    uptimeSeconds: Math.round((meta.now - meta.startedAt) / 1000),
    components,
    capabilities: capabilities(components),
  };
}
