export { PrivacyModule } from './privacy.module';
export { PrivacyProcessorsModule } from './privacy-processors.module';
export { PrivacyService, type UserExport, type ErasureRequest } from './privacy.service';
export { ErasureRecords, type ErasureRecord, type ErasureStatus, type ErasedCounts } from './erasure/erasure-records';
export { PersonalDataStores } from './stores/personal-data-stores';
