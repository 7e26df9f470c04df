import { writeFileSync } from 'node:fs';
import { startTestGateway } from './test/helpers/gateway.ts';

const gw = await startTestGateway({} as never);
const r = await (await fetch(`${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge`)).json();
writeFileSync('/tmp/r.json', JSON.stringify(r));
const k = await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json();
console.log('KEY', k.verifierKey, 'URL', gw.httpUrl);
const t = performance.now();
console.log((await fetch(`${gw.httpUrl}/api/evidence/checkpoint`)).status, performance.now() - t);
await new Promise((res) => setTimeout(res, 30000));
await gw.cleanup();
