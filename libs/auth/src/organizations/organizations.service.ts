import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig, AppError, newId, notFound, type Region } from '@foresight/platform';
import { Organization } from './organization.entity';

export interface RateLimitSettings {
  rateLimitPerMinute: number;
  burstPerMinute: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { rateLimitPerMinute: 300, burstPerMinute: 600 };
/** About 13 months: a year of history plus the month being compared with it. */
export const DEFAULT_RETENTION_DAYS = 395;
const MAX_RETENTION_DAYS = 3650;

/** How an organization's personal data is kept. */
export interface PrivacySettings {
  hashUserIds: boolean;
  retentionDays: number;
}

export interface CreateOrganization extends Partial<PrivacySettings> {
  name: string;
  region?: Region;
  rateLimitPerMinute?: number;
  burstPerMinute?: number;
}

export interface UpdateOrganization extends Partial<PrivacySettings> {
  name?: string;
  rateLimitPerMinute?: number;
  burstPerMinute?: number;
}

@Injectable()
export class OrganizationsService {
  constructor(
    @InjectRepository(Organization) private readonly organizations: Repository<Organization>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(input: CreateOrganization): Promise<Organization> {
    const region = input.region ?? this.config.region;
    if (region !== this.config.region) {
      // Data stays in the region the customer selected: this deployment serves one region only.
      throw new AppError('invalid_request', `region: this deployment serves region "${this.config.region}", not "${region}"`);
    }
    const limits = checkRateLimits({
      rateLimitPerMinute: input.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT.rateLimitPerMinute,
      burstPerMinute: input.burstPerMinute ?? Math.max(DEFAULT_RATE_LIMIT.burstPerMinute, 2 * (input.rateLimitPerMinute ?? 0)),
    });
    const privacy: PrivacySettings = {
      hashUserIds: input.hashUserIds ?? false,
      retentionDays: checkRetentionDays(input.retentionDays ?? DEFAULT_RETENTION_DAYS),
    };
    return this.organizations.save(this.organizations.create({ id: newId('org'), name: checkName(input.name), region, ...limits, ...privacy }));
  }

  async update(id: string, changes: UpdateOrganization): Promise<Organization> {
    const organization = await this.get(id);
    const limits = checkRateLimits({
      rateLimitPerMinute: changes.rateLimitPerMinute ?? organization.rateLimitPerMinute,
      burstPerMinute: changes.burstPerMinute ?? organization.burstPerMinute,
    });
    Object.assign(
      organization,
      limits,
      changes.name === undefined ? {} : { name: checkName(changes.name) },
      changes.hashUserIds === undefined ? {} : { hashUserIds: changes.hashUserIds },
      changes.retentionDays === undefined ? {} : { retentionDays: checkRetentionDays(changes.retentionDays) },
    );
    return this.organizations.save(organization);
  }

  async get(id: string): Promise<Organization> {
    const organization = await this.organizations.findOneBy({ id });
    if (!organization) throw notFound(`organization ${id}`);
    return organization;
  }

  list(): Promise<Organization[]> {
    return this.organizations.find({ order: { createdAt: 'ASC' } });
  }
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw new AppError('invalid_request', 'name: 1 to 200 characters');
  return trimmed;
}

function checkRetentionDays(days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS) {
    throw new AppError('invalid_request', `retentionDays: a whole number of days from 1 to ${MAX_RETENTION_DAYS}`);
  }
  return days;
}

function checkRateLimits(limits: RateLimitSettings): RateLimitSettings {
  const { rateLimitPerMinute, burstPerMinute } = limits;
  if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1) {
    throw new AppError('invalid_request', 'rateLimitPerMinute: a whole number of at least 1');
  }
  if (!Number.isInteger(burstPerMinute) || burstPerMinute <= rateLimitPerMinute) {
    throw new AppError('invalid_request', 'burstPerMinute: a whole number greater than rateLimitPerMinute');
  }
  return limits;
}
