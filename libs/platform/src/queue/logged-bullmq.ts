import { BullModule } from '@nestjs/bullmq';
import { type Processor, Queue, type QueueOptions, Worker, type WorkerOptions } from 'bullmq';
import { redisOutageLog } from '../redis/redis-outage-log';

/**
 * BullMQ prints every connection error of a queue or worker that has no `error` listener (each
 * reconnect attempt of each connection). These report them to the one outage log instead.
 */
export class LoggedQueue extends Queue {
  constructor(name: string, opts?: QueueOptions) {
    super(name, opts);
    this.on('error', (error: Error) => redisOutageLog.failed(error));
  }
}

export class LoggedWorker extends Worker {
  constructor(name: string, processor?: string | URL | null | Processor, opts?: WorkerOptions) {
    super(name, processor, opts);
    this.on('error', (error: Error) => redisOutageLog.failed(error));
  }
}

// Every BullModule.registerQueue call imports the queue contract, which imports this file first.
BullModule.queueClass = LoggedQueue;
BullModule.workerClass = LoggedWorker;
