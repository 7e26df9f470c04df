/**
 * The overview's Evidence section: the town's public key, which signs the evidence log's checkpoints
 * (GET /api/evidence/key), in its one-line form with a copy button, and its short fingerprint, for anyone
 * checking a report with the offline verifier to compare with the one the town publishes.
 */
import { describeError, get } from '../../api.js';
import { copyText } from '../../ui/dialogs.js';
import { byId, h, replace } from '../../ui/dom.js';

type EvidenceKey = import('../../../../shared/src/api.ts').EvidenceKey;

let key: EvidenceKey | undefined;

function render(k: EvidenceKey) {
  const line = h('code', { class: 'key-line', id: 'evidence-key-line' }, k.verifierKey);
  const status = h('span', { class: 'small muted', role: 'status' });
  return [
    h('h3', { id: 'evidence-h' }, 'Evidence: the town’s public key'),
    h(
      'p',
      { class: 'small muted' },
      'Every report’s evidence is signed with this key. To check a report with the offline verifier, paste this line into it.',
    ),
    h('div', { class: 'key-row' }, line),
    h(
      'p',
      null,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          id: 'evidence-key-copy',
          onclick: () => {
            copyText(k.verifierKey, line).then((how) => {
              status.textContent = how === 'copied' ? 'Key copied.' : 'Key selected: press Ctrl+C to copy.';
            });
          },
        },
        'Copy the key',
      ),
      ' ',
      status,
    ),
    h(
      'p',
      null,
      'Fingerprint: ',
      h('strong', { class: 'key-fingerprint', id: 'evidence-key-fingerprint' }, k.fingerprint),
    ),
    h(
      'p',
      { class: 'small muted' },
      'Compare this fingerprint with the one the town publishes (on its website or its notices). If they differ, this is not the town’s key: do not rely on a report checked with it.',
    ),
  ];
}

/** Shows the key (read once; it does not change while the gateway runs). */
export async function showEvidenceKey(): Promise<void> {
  const box = byId('overview-evidence');
  try {
    key ??= await get('GET /api/evidence/key');
    replace(box, ...render(key));
  } catch (e) {
    replace(
      box,
      h('h3', null, 'Evidence: the town’s public key'),
      h('p', { class: 'text-bad' }, `The key could not be read: ${describeError(e)}`),
    );
  }
}
