/**
 * What an officer's approval of a notice's correction rests on, checked inside the step's transaction
 * against the notice as stored: a correction reported by the owner or contractor (since the appeal's
 * hearing, when one was held: the decision may have changed what is to be done), and the re-inspection
 * that found it done, an inspection of the notice's site made after that correction was reported. Town
 * law 001 ("Enforcement"; "until any violations are corrected and all work previously completed has
 * received approval") makes the approval the town's, on its inspection: required. Town law 000, Section
 * 5.100 B, names no re-inspection before an order is met: the officer may name one, checked the same.
 */
import { lawOfNotice } from '../../../shared/src/api/enforcementLaws.ts';
import { correctionToApprove } from '../../../shared/src/api/enforcementWords.ts';
import type { ViolationDto } from '../../../shared/src/api/violations.ts';
import { formatLong } from '../../../shared/src/time.ts';
import type { ApprovalDetail } from '../enforcement/dto.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/**
 * The approval's re-inspection, checked; undefined where the law needs none and none is named. Throws a
 * refusal in words otherwise.
 */
export function approvalDetail(
  ctx: Pick<ApiContext, 'compliance'>,
  v: ViolationDto,
  inspectionId: string | undefined,
  tz: string,
): ApprovalDetail | undefined {
  const heard = v.events.some((e) => e.kind === 'heard');
  const correction = correctionToApprove(v.events);
  if (!correction)
    throw new ApiError(
      'NOT_CORRECTED',
      heard
        ? 'No correction is reported since the hearing of the appeal: approval is offered once the owner or contractor reports the correction.'
        : undefined,
    );
  const reported = formatLong(Date.parse(correction.at), tz);
  if (inspectionId === undefined) {
    if (!lawOfNotice(v).approvalReinspection) return undefined;
    throw new ApiError(
      'REINSPECTION_NEEDED',
      `The approval rests on a re-inspection made after the correction was reported (${reported}): record the re-inspection first, then choose it.`,
      undefined,
      'inspectionId',
    );
  }
  const insp = ctx.compliance.getInspection(inspectionId);
  if (!insp || insp.siteId !== v.siteId)
    throw new ApiError(
      'REINSPECTION_NEEDED',
      insp
        ? 'The inspection named is of another site: the approval rests on a re-inspection of this site.'
        : 'The inspection named is not on record: choose a re-inspection of this site.',
      undefined,
      'inspectionId',
    );
  const inspectedAt = Date.parse(insp.at);
  if (inspectedAt < Date.parse(correction.at))
    throw new ApiError(
      'REINSPECTION_NEEDED',
      `The inspection named was made ${formatLong(inspectedAt, tz)}, before the correction was reported (${reported}): the approval rests on a re-inspection made after it.`,
      undefined,
      'inspectionId',
    );
  return { inspectionId: insp.id, inspectedAt, inspectedBy: insp.inspector };
}
