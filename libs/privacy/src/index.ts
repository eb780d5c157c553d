export { PrivacyModule } from './privacy.module';
export { PrivacyProcessorsModule } from './privacy-processors.module';
export { PrivacyService, type UserExport, type ErasureRequest } from './privacy.service';
export { ErasureRecordsService, type ErasureRecord, type ErasureStatus, type ErasedCounts } from './erasure/erasure-records.service';
export { PersonalDataStoresService } from './stores/personal-data-stores.service';
