/**
 * Issue 17, point 3: 199 wrong MQTT logins for one username sent at once and the right password after
 * them; 299 wrong sign-ins on one account and the right one after them. Figures: passwords actually checked
 * (answers "bad credentials" / 401: an attempt refused unchecked answers "server unavailable" / 429), and
 * what the right password got while the burst was answered (0 / 200: accepted).
 */
import { rawConnect, rawSignIn } from '../helpers/rawLogin.ts';
import { baseConfig, hash, report, startChild } from './support.ts';

const email = 'olive@chester.example';
const gw = await startChild(
  baseConfig({
    auth: {
      users: [
        { name: 'Olive Officer', email, role: 'inspector', passwordHash: hash('olive-right-password') },
      ],
    },
  }),
);
try {
  const wrong = Array.from({ length: 199 }, (_, i) => rawConnect(gw.mqttPort, 'maple-ridge/rg-1', `w${i}`));
  await Promise.all(wrong.map((w) => w.sent));
  const right = rawConnect(gw.mqttPort, 'maple-ridge/rg-1', 'pw-rg-1');
  const codes = await Promise.all(wrong.map((w) => w.connack));
  const mqttRight = await right.connack;
  const wrongIn = Array.from({ length: 299 }, (_, i) => rawSignIn(gw.httpUrl, email, `w${i}`));
  await Promise.all(wrongIn.map((w) => w.sent));
  const rightIn = rawSignIn(gw.httpUrl, email, 'olive-right-password');
  const statuses = await Promise.all(wrongIn.map((w) => w.status));
  const httpRight = await rightIn.status;
  report('burst', {
    mqttPasswordsChecked: codes.filter((c) => c === 4).length,
    mqttRefusedUnchecked: codes.filter((c) => c === 3).length,
    mqttRightPasswordConnack: mqttRight,
    httpPasswordsChecked: statuses.filter((s) => s === 401).length,
    httpRefusedUnchecked: statuses.filter((s) => s === 429).length,
    httpRightPasswordStatus: httpRight,
  });
} finally {
  await gw.cleanup();
}
