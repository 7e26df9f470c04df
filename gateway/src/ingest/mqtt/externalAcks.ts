/**
 * The external input's QoS 1 acknowledgements, sent by the gateway itself after the commit. mqtt.js hands
 * incoming PUBLISH packets to `handleMessage` one at a time and sends the PUBACK when its callback is
 * called without an error; waiting there for the commit would allow one message in flight. So the
 * callback is called at once with DEFERRED (mqtt.js then reads the next packet and sends nothing), and
 * each QoS 1 message gets a slot here. Once it is stored its slot is marked; PUBACKs go out from the
 * head of the queue, in the order the PUBLISH packets arrived (as MQTT requires), and only on the
 * connection they arrived on. A slot whose message was not stored (the connection was lost or the
 * input stops) sends nothing: the broker redelivers it.
 */
import type { MqttClient } from 'mqtt';

/** Passed to mqtt.js's handleMessage callback: move on, send no PUBACK (this queue sends it). */
export const DEFERRED: Error = new Error('mqtt-external: acknowledged after the commit');

/** The part of mqtt.js's client that writes a packet on the current connection (not public in its types). */
interface PacketWriter {
  connected: boolean;
  _sendPacket(packet: { cmd: 'puback'; messageId: number }): void;
}

interface Slot {
  messageId: number;
  /** undefined while being stored; true: acknowledge; false: leave for redelivery. */
  ack: boolean | undefined;
}

export class AckQueue {
  private slots: Slot[] = [];
  private head = 0;
  private epoch = -1;
  private client: PacketWriter | undefined;

  /** Acknowledgements go to `client` from now on. */
  use(client: MqttClient): void {
    this.client = client as unknown as PacketWriter;
  }

  /** Opens the slot of a QoS 1 message that arrived on connection `epoch`; call the result once it is settled. */
  open(messageId: number, epoch: number): (stored: boolean, currentEpoch: number) => void {
    if (epoch !== this.epoch) {
      // A new connection: what was left of the old one is never acknowledged on this one.
      this.slots = [];
      this.head = 0;
      this.epoch = epoch;
    }
    const slot: Slot = { messageId, ack: undefined };
    this.slots.push(slot);
    return (stored, currentEpoch) => {
      slot.ack = stored && currentEpoch === epoch;
      if (epoch === this.epoch) this.flush();
    };
  }

  /** Messages whose PUBACK is not sent yet. */
  get waiting(): number {
    return this.slots.length - this.head;
  }

  private flush(): void {
    const slots = this.slots;
    const client = this.client;
    while (this.head < slots.length) {
      const slot = slots[this.head]!;
      if (slot.ack === undefined) break;
      this.head++;
      if (slot.ack && client?.connected) client._sendPacket({ cmd: 'puback', messageId: slot.messageId });
    }
    if (this.head > 1024 && this.head * 2 > slots.length) {
      this.slots = slots.slice(this.head);
      this.head = 0;
    }
  }
}
