export const ALERT_ERROR_CODES = [
  'NOT_FOUND',
  'ALREADY_RESOLVED',
  'ALREADY_ACKNOWLEDGED',
  'NOTE_REQUIRED',
  'BAD_EXTENSION',
  'BAD_INSPECTION',
  'UNKNOWN_SITE',
  'INSPECTION_RESENT_CHANGED',
  'NOT_BY_HAND',
  'EMPTY_INSPECTION',
] as const;
export type AlertErrorCode = (typeof ALERT_ERROR_CODES)[number];

/** The HTTP status each code maps to. */
export const ALERT_ERROR_HTTP_STATUS: Record<AlertErrorCode, number> = {
  NOT_FOUND: 404,
  ALREADY_RESOLVED: 409,
  ALREADY_ACKNOWLEDGED: 409,
  NOTE_REQUIRED: 400,
  BAD_EXTENSION: 400,
  BAD_INSPECTION: 400,
  UNKNOWN_SITE: 404,
  INSPECTION_RESENT_CHANGED: 409,
  NOT_BY_HAND: 409,
  EMPTY_INSPECTION: 422,
};

/** A refused action on an alert, inspection or extension; `code` is stable for the API. */
export class AlertError extends Error {
  override readonly name = 'AlertError';
  constructor(
    readonly code: AlertErrorCode,
    message: string,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return ALERT_ERROR_HTTP_STATUS[this.code];
  }
}
