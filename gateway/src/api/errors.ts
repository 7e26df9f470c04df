import type { ErrorBody } from '../../../shared/src/api.ts';

/** The API's error catalogue: every error a client can see has a stable code. */
export const API_ERRORS = {
  UNAUTHORIZED: { status: 401, message: 'a bearer token or a signed-in session is required' },
  FORBIDDEN: { status: 403, message: 'your role may not do this' },
  NOT_FOUND: { status: 404, message: 'not found' },
  BAD_REQUEST: { status: 400, message: 'the request is not valid' },
  CONFLICT: { status: 409, message: 'the request conflicts with the current state' },
  TOO_LARGE: { status: 413, message: 'the request body is too large' },
  BAD_CURSOR: {
    status: 400,
    message:
      'The page marker (cursor) is not one this list gave, or it belongs to another list: ask for the first page again, without it.',
  },
  UNAVAILABLE: { status: 503, message: 'not available in this configuration' },
  TOO_MANY_REQUESTS: { status: 429, message: 'too many failed attempts: wait and try again' },
  METRICS_STAFF: {
    status: 403,
    message:
      "The gateway's metrics cover every site: they are for the town's staff, not for an owner's or contractor's account.",
  },
  LIVE_FEEDS_ACCOUNT: {
    status: 429,
    message:
      'You have too many live views of the gateway open: close a tab or window of the dashboard, then try again.',
  },
  LIVE_FEEDS_FULL: {
    status: 429,
    message: 'The gateway has as many live views open as it can serve: try again in a minute.',
  },
  READ_ONLY: { status: 503, message: 'the store is read-only: nothing can be saved now' },
  CSRF: {
    status: 403,
    message: 'a write with the session cookie needs its x-csrf-token, from the same site',
  },
  REPORTS_BUSY: {
    status: 503,
    message: 'the gateway is building other reports and documents: try again in a few seconds',
  },
  PDF_UNAVAILABLE: {
    status: 501,
    message: 'PDF export needs Chromium on the gateway; the HTML report prints to PDF from any browser',
  },
  PDF_FAILED: {
    status: 500,
    message: 'Chromium could not print the report to PDF; the HTML report prints to PDF from any browser',
  },
  SETUP_USED: { status: 410, message: 'this setup link is used up, expired or wrong' },
  EMAIL_TAKEN: { status: 409, message: 'an account with this e-mail exists' },
  STILL_ACTIVE: {
    status: 409,
    message: 'the device still reports this alarm as active: resolve with confirmActive: true',
  },
  NOT_CONSTRUCTION: {
    status: 409,
    message: 'milestone notices and findings at practices are for construction sites only',
  },
  PHOTO_TYPE: {
    status: 415,
    message: 'Only JPEG, PNG and WebP photos can be kept.',
  },
  PHOTO_MISMATCH: {
    status: 400,
    message: 'The file is not the kind of image it is declared as.',
  },
  PHOTO_QUOTA: {
    status: 413,
    message: "The site's or the account's photos have reached their limit: the photo cannot be kept.",
  },
  PHOTO_NO_SPACE: {
    status: 507,
    message: "The gateway's disk is nearly full: the photo cannot be kept now. Try again later.",
  },
  PHOTOS_BUSY: {
    status: 503,
    message:
      'The gateway is receiving as many photos as it can at once: send this one again in a few seconds.',
  },
  UNKNOWN_PRACTICE: {
    status: 400,
    message: 'A finding names a practice this site does not have.',
  },
  PRACTICE_KEPT: {
    status: 409,
    message: 'A practice that findings name is retired, not removed, and a retirement stays as recorded.',
  },
  RETIRED_PRACTICE: {
    status: 400,
    message: 'A finding is for a practice retired by the time of the inspection: it is no longer inspected.',
  },
  UNKNOWN_PHOTO: {
    status: 400,
    message: 'A finding cites a photo the gateway does not have: send the photo first.',
  },
  NO_PARTIES: {
    status: 409,
    message: "The site has no landowner or developer on record: add them on the site's page.",
  },
  APPEAL_CLOSED: { status: 409, message: 'The time to appeal this notice of violation has ended.' },
  ALREADY_APPEALED: { status: 409, message: 'This notice of violation has already been appealed.' },
  VIOLATION_CLOSED: {
    status: 409,
    message: 'The officer has approved the correction: this notice of violation is closed.',
  },
  NOT_CORRECTED: {
    status: 409,
    message:
      'No correction of this notice is reported yet: approval is offered once the owner or contractor reports the correction.',
  },
  REINSPECTION_NEEDED: {
    status: 409,
    message:
      'The approval rests on a re-inspection made after the correction was reported: record the re-inspection first, then name it.',
  },
  NO_HEARING: {
    status: 409,
    message: 'Under this law an appeal is not heard by a board: no hearing is recorded for it.',
  },
  NOT_APPEALED: { status: 409, message: 'This notice has not been appealed: there is no hearing to record.' },
  NO_MQTT_SECRET: {
    status: 409,
    message:
      'This device connects through LoRaWAN, Modbus RTU or SDI-12: it has no MQTT password to replace.',
  },
  ALREADY_HEARD: { status: 409, message: 'The hearing of this appeal is already recorded.' },
  RECORD_OUT_OF_ORDER: {
    status: 409,
    message:
      "This record does not follow the site's records: a one-year inspection needs a final acceptance before it.",
  },
  STOP_WORK_IN_EFFECT: { status: 409, message: 'A stop-work order is already in effect at this site.' },
  NO_STOP_WORK: { status: 409, message: 'No stop-work order is in effect at this site.' },
  NOTICES_OPEN: {
    status: 409,
    message: 'A notice of violation the order names is not approved yet: the order stays in effect.',
  },
} as const;
export type ApiErrorCode = keyof typeof API_ERRORS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message?: string,
    /** Seconds a client should wait before trying again (sent as Retry-After). */
    readonly retryAfterSec?: number,
    /** The path of the part of the body refused (`findings[2].practice`). */
    readonly field?: string,
  ) {
    super(message ?? API_ERRORS[code].message);
    this.status = API_ERRORS[code].status;
  }
}

/** The body of every refusal and failure: the contract's error shape. */
export const errorBody = (error: string, message: string, field?: string): ErrorBody => ({
  error,
  message,
  ...(field !== undefined ? { field } : {}),
});
