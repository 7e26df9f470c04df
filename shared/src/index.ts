export * from './crc16.ts';
export * from './telemetry.ts';
export * from './topics.ts';
export * from './password.ts';
