import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
const optionalText = z.string().trim().min(1).optional();

/** Every environment variable the service reads, with defaults. Validated once, before start-up. */
export const environmentSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]*$/, 'letters, digits, ":", "_" and "-" only').default('foresight:'),
  TOKEN_PEPPER: z.string().min(32, 'at least 32 characters').optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters (a 256-bit key)')
    .optional(),
  REGION: z.enum(['eu', 'us']).default('eu'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_PORT: port.default(9464),
  WORKER_MODE: z.enum(['inline', 'off']).optional(),
  OTEL_SERVICE_NAME: optionalText,
});

export type Environment = z.infer<typeof environmentSchema>;

/** Variables that have no usable default once an external database is configured. */
export const REQUIRED_WITH_EXTERNAL_DATABASE = ['TOKEN_PEPPER', 'ENCRYPTION_KEY'] as const;
