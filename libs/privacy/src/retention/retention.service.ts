import { Injectable } from '@nestjs/common';
import { OrganizationsService } from '@foresight/auth';
import { DAY_MS, MonthlyPartitionsService } from '@foresight/platform';
import { PersonalDataStoresService } from '../stores/personal-data-stores.service';


export interface RetentionOutcome {
  /** Rows removed per store, all organizations together. */
  expired: Record<string, number>;
  droppedPartitions: string[];
}

/**
 * Each organization's `retentionDays`: whole monthly partitions go once they are past every
 * organization's retention (they are shared); the rest is deleted per organization by each store.
 */
@Injectable()
export class RetentionService {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly stores: PersonalDataStoresService,
    private readonly partitions: MonthlyPartitionsService,
  ) {}

  async run(): Promise<RetentionOutcome> {
    const now = new Date();
    const organizations = await this.organizations.list();
    const droppedPartitions: string[] = [];
    if (organizations.length > 0) {
      const longest = new Date(now.getTime() - Math.max(...organizations.map((o) => o.retentionDays)) * DAY_MS);
      droppedPartitions.push(...(await this.partitions.dropBefore('events', longest)), ...(await this.partitions.dropBefore('predictions', longest)));
    }
    const expired: Record<string, number> = {};
    for (const organization of organizations) {
      const before = new Date(now.getTime() - organization.retentionDays * DAY_MS);
      for (const store of this.stores.all()) {
        if (!store.expire) continue;
        expired[store.name] = (expired[store.name] ?? 0) + (await store.expire(organization.id, before));
      }
    }
    return { expired, droppedPartitions };
  }
}
