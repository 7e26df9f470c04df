export * from './channels/email.ts';
export * from './channels/webhook.ts';
export * from './dispatcher.ts';
export * from './errors.ts';
export * from './queue.ts';
export * from './routing.ts';
