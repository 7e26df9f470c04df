/**
 * `npm run mosquitto-acl -- [CONFIG...]`: prints a Mosquitto ACL for an external broker shared by the
 * gateways of the files given (default the sample configuration): each device writes only its own topics,
 * each gateway reads the devices' topics and the other gateways' state, status and checkpoints and writes
 * only its own (config/mosquittoAcl.ts). Device passwords for Mosquitto are set with `mosquitto_passwd`
 * (the gateway keeps only hashes). Exits 2 when two gateways share a login or a login name is taken twice.
 */
import { ConfigError, loadConfig } from '../config/load.ts';
import { AclError, mosquittoAcl } from '../config/mosquittoAcl.ts';
import { SAMPLE_CONFIG } from '../paths.ts';

const paths = process.argv.slice(2);
if (paths.length === 0) paths.push(process.env.GATEWAY_CONFIG ?? SAMPLE_CONFIG);
try {
  process.stdout.write(mosquittoAcl(paths.map((path) => ({ path, config: loadConfig(path, {}) }))));
} catch (e) {
  if (!(e instanceof AclError || e instanceof ConfigError)) throw e;
  process.stderr.write(`${e.message}\n`);
  process.exitCode = 2;
}
