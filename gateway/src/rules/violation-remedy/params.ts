/** The `violation-remedy` rule's parameters: none (the officer's notice sets the schedule). */
export const params = { site: {}, device: {} };

export type Params = typeof params;
