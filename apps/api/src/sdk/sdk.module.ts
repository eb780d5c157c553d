import { Module } from '@nestjs/common';
import { SdkController } from './sdk.controller';

/** Serves the web SDK bundle and its example page (built by libs/sdk-web). */
@Module({ controllers: [SdkController] })
export class SdkModule {}
