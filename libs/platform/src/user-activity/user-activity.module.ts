import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '../queue/queue-contract';
import { UserActivityFeedService } from './user-activity-feed.service';

/** Import to report (events) or to enable (webhooks) user activity; libs/predictions consumes the queue. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.userActivity })],
  providers: [UserActivityFeedService],
  exports: [UserActivityFeedService],
})
export class UserActivityModule {}
