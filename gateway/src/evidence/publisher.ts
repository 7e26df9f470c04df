/** What a checkpoint publisher is (publishers.ts has the three kinds; the stage and the off-box reading use them). */
import type { Checkpoint } from '../ledger/checkpoint.ts';

export interface SignedCheckpoint extends Checkpoint {
  /** The signed note, as published. */
  note: string;
  at: number;
}

/** Somewhere a checkpoint goes off the box; a publisher that can also read its last one back says so. */
export interface CheckpointPublisher {
  name: string;
  /** Where the checkpoints go, in plain words ("the external MQTT broker"). */
  where: string;
  /** False for a copy kept on the gateway's own box (the embedded broker's retained message). */
  offBox?: boolean;
  publish(cp: SignedCheckpoint): Promise<void>;
  readBack?(): Promise<string | undefined>;
}
