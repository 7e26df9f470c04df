/** Several broker URLs (the nodes of a cluster) as one mqtt.js client's failover list. */
import type { IClientOptions } from 'mqtt';

/** mqtt.js `servers` for a list of broker URLs: each reconnect takes the next (nothing for one URL). */
export function failoverServers(urls: readonly string[]): Pick<IClientOptions, 'servers'> {
  if (urls.length < 2) return {};
  return {
    servers: urls.map((u) => {
      const url = new URL(u);
      const secure = url.protocol === 'mqtts:' || url.protocol === 'ssl:';
      return {
        host: url.hostname,
        port: Number(url.port) || (secure ? 8883 : 1883),
        protocol: secure ? ('mqtts' as const) : ('mqtt' as const),
      };
    }),
  };
}
