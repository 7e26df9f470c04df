export * from './crc16.ts';
export * from './password.ts';
export * from './rules.ts';
export * from './telemetry.ts';
export * from './topics.ts';
