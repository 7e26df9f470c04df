export * from './dispatcher.ts';
export * from './email.ts';
export * from './errors.ts';
export * from './routing.ts';
export * from './store.ts';
export * from './webhook.ts';
