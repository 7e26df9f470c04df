/** What an import names: the device the file is from and how to read its times (the API's query string). */
export { type ImportQuery, importQuery } from '../../../shared/src/api/requests.ts';
