export { type ErasureRecord, ErasureRecordsService } from './erasure/erasure-records.service';
export type { ErasedCounts, ErasureStatus } from './erasure/erasure-records.sql';
export { PrivacyModule } from './privacy.module';
export { type ErasureRequest, PrivacyService, type UserExport } from './privacy.service';
export { PrivacyProcessorsModule } from './privacy-processors.module';
export { type RetentionOutcome, RetentionService } from './retention/retention.service';
export { PersonalDataStoresService } from './stores/personal-data-stores.service';
