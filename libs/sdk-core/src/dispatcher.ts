import type { Clock } from './clock';
import { type EventQueue, retryDelayMs } from './event-queue';
import type { SdkEvent } from './payload';
import type { SendOutcome, Transport } from './transport';

/**
 * Delivers the queue: one request at a time, oldest events first, none while backing off after a
 * failure. An event leaves the queue only once the server answered for it, and keeps its messageId
 * through every retry, so it is stored exactly once whatever was lost on the way.
 */
export class Dispatcher {
  private sending?: Promise<void>;
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly queue: EventQueue,
    private readonly transport: Transport,
    private readonly clock: Clock,
    private readonly warn: (message: string) => void,
  ) {}

  /** Sends until the queue is empty or a failure calls for a pause; concurrent calls share one run. */
  flush(): Promise<void> {
    if (!this.sending && this.queue.size > 0 && this.retryInMs() === 0) {
      this.sending = this.drain().finally(() => (this.sending = undefined));
    }
    return this.sending ?? Promise.resolve();
  }

  /** Milliseconds until the next attempt is allowed; 0 when not backing off. */
  retryInMs(): number {
    return Math.max(0, this.retryAt - this.clock.now());
  }

  private async drain(): Promise<void> {
    for (let batch = this.queue.peek(); batch.length > 0; batch = this.queue.peek()) {
      if (!this.settle(batch, await this.transport.send(batch))) return;
    }
  }

  /** True when sending may go on. */
  private settle(batch: SdkEvent[], outcome: SendOutcome): boolean {
    if (outcome.kind === 'retry') {
      this.failures++;
      this.retryAt = this.clock.now() + retryDelayMs(this.failures, this.clock.random(), outcome.retryAfterSeconds);
      return false;
    }
    this.failures = 0;
    if (outcome.kind === 'sent') {
      this.queue.remove(batch);
    } else {
      // When the server named the bad events, only they are dropped; the rest of the batch goes again.
      const named = outcome.indexes.filter((index) => index < batch.length).map((index) => batch[index]);
      const dropped = named.length > 0 ? named : batch;
      this.queue.remove(dropped);
      this.warn(`the API refused ${dropped.length} event(s) with HTTP ${outcome.status}`);
    }
    return true;
  }
}
