/** The `developer-records` rules' parameters: none (the law sets what is required; the records, when). */
export const params = { site: {}, device: {} };

export type Params = typeof params;
