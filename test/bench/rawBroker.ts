/** A plain aedes broker (no hooks, no gateway) in its own process: the denominator of the benchmark. argv: port */
import { createServer } from 'node:net';
import { Aedes } from 'aedes';

const broker = await Aedes.createBroker();
const server = createServer(broker.handle);
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => broker.close(() => process.exit(0))));
