export { type InfluxSettings, influxClientFromConfig } from './client.ts';
export * from './errors.ts';
export * from './lineProtocol.ts';
export {
  type DeadLetter,
  type DeadLetterSource,
  type DeadLine,
  InfluxOutbox,
  type OutboxRow,
} from './outbox.ts';
export { type AlertOfChange, InfluxOutput, type InfluxOutputOptions } from './output.ts';
export type { InfluxSource, SourceRow, WriteClient } from './source.ts';
export { InfluxV1Client, type InfluxV1Options } from './v1.ts';
export { InfluxV2Client, type InfluxV2Options, mapV2Error } from './v2.ts';
export { InfluxWriter, type InfluxWriterOptions } from './writer.ts';
