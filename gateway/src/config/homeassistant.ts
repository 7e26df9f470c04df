/** The `homeassistant` settings: MQTT discovery for Home Assistant (`homeassistant/`), off unless `discovery: true`. */
import { z } from 'zod';

export const homeAssistantSchema = z
  .strictObject({
    /** Publish Home Assistant MQTT discovery configs and the states they read (retained). */
    discovery: z.boolean().default(false),
    /** Home Assistant's discovery prefix (its MQTT integration's setting). */
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'topic levels of letters, digits, _ and -')
      .default('homeassistant'),
    /** A device's state is published when it changed, at most this often. */
    publishSeconds: z.number().int().min(1).max(3600).default(60),
  })
  .prefault({});
export type HomeAssistantConfig = z.infer<typeof homeAssistantSchema>;
