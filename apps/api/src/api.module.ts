import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AuthModule } from '@foresight/auth';
import { EventsModule, EventsProcessorsModule } from '@foresight/events';
import { ModelsModule, ModelsProcessorsModule } from '@foresight/models';
import { MetricsServerService, PlatformModule, QueueModule, type Runtime } from '@foresight/platform';
import { PredictionsModule, PredictionsProcessorsModule } from '@foresight/predictions';
import { PrivacyModule, PrivacyProcessorsModule } from '@foresight/privacy';
import { WebhooksModule, WebhooksProcessorsModule } from '@foresight/webhooks';
import { AudiencesController } from './audiences/audiences.controller';
import { AuditController } from './audit/audit.controller';
import { SsoController } from './auth/sso.controller';
import { ActivityController } from './events/activity.controller';
import { EventsController } from './events/events.controller';
import { LiveEventsController } from './events/live-events.controller';
import { SdkSettingsController } from './events/sdk-settings.controller';
import { HealthController, ProbesController } from './health/health.controller';
import { AccessGuard } from './http/access.guard';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { ModelsController } from './models/models.controller';
import { ScoringRunsController } from './models/scoring-runs.controller';
import { OrganizationController } from './organization/organization.controller';
import { ExportController } from './predictions/export.controller';
import { MonitoringController } from './predictions/monitoring.controller';
import { PredictionsController } from './predictions/predictions.controller';
import { SdkModule } from './sdk/sdk.module';
import { CurrentTokenController } from './tokens/current-token.controller';
import { TokensController } from './tokens/tokens.controller';
import { UsersController } from './users/users.controller';
import { WebhooksController } from './webhooks/webhooks.controller';

@Module({})
export class ApiModule {
  static register(runtime: Runtime): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forRoot(runtime),
        AuthModule,
        EventsModule,
        ModelsModule,
        PredictionsModule,
        PrivacyModule,
        QueueModule,
        SdkModule,
        WebhooksModule,
        // Embedded and small deployments run the libs' processors inside the API process, as the worker composes them.
        ...(runtime.config.workerMode === 'inline'
          ? [EventsProcessorsModule, ModelsProcessorsModule, PredictionsProcessorsModule, PrivacyProcessorsModule, WebhooksProcessorsModule]
          : []),
      ],
      controllers: [
        ActivityController,
        AudiencesController,
        AuditController,
        CurrentTokenController,
        EventsController,
        ExportController,
        HealthController,
        LiveEventsController,
        ModelsController,
        ScoringRunsController,
        MonitoringController,
        OrganizationController,
        PredictionsController,
        ProbesController,
        SdkSettingsController,
        SsoController,
        TokensController,
        UsersController,
        WebhooksController,
      ],
      providers: [
        MetricsServerService,
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
