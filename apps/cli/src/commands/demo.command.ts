import type { Command } from 'commander';
import { OrganizationsService } from '@foresight/auth';
import { DEMO_DEFAULTS, DEMO_INTENT_SIGNALS, DEMO_TARGET_DESCRIPTIONS, DEMO_TARGETS, type DemoIntentSignal, type DemoSeedOptions, DemoTruthFile, generateDemoUsers, oracleProbability, SAAS_TARGETS, seedDemo } from '@foresight/demo';
import { DEMO_SEED, IngestService, validateEvents } from '@foresight/events';
import { DAY_MS } from '@foresight/platform';
import type { CliContext } from '../cli-context';
import { parseWholeNumber, printResult } from '../output';

interface SeedOptions {
  org: string;
  users: number;
  days: number;
  seed: number;
  shift: number;
  userPrefix: string;
  intentSignal: DemoIntentSignal;
  truthFile?: string;
  horizonDays: number;
}

/** Matches the models' default horizon. */
const DEFAULT_HORIZON_DAYS = 7;
/** Users simulated by `demo targets` to estimate the base rates it prints. */
const BASE_RATE_SAMPLE_USERS = 5000;

export function registerDemoCommands(program: Command, context: CliContext): void {
  const demo = program.command('demo').description('Demo data with a known per-user propensity for checkout, upgrade and churn');

  demo
    .command('seed')
    .description('Generate behavioral events for N users over D days and send them through ingestion (re-running a seed stores nothing twice)')
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--users <n>', 'number of users', parseWholeNumber('--users'))
    .requiredOption('--days <d>', 'days of history, ending now', parseWholeNumber('--days'))
    .option('--seed <s>', 'random seed; the same seed gives the same events and messageIds', parseSeed, DEMO_DEFAULTS.seed)
    .option('--shift <x>', 'population drift from -1 to 1 (0: reference population); moves behavior and propensities', parseShift, DEMO_DEFAULTS.shift)
    .option('--user-prefix <prefix>', 'user id prefix, so several populations can share an organization', parseUserPrefix, DEMO_DEFAULTS.userPrefix)
    .option(
      '--intent-signal <where>',
      `where buying and upgrade intent show: ${DEMO_INTENT_SIGNALS.join(' or ')} (screens: only which screens are viewed, how long and how hesitantly; no event name carries it;` +
        ` saas: a subscription product whose targets are ${SAAS_TARGETS.join(' and ')}, --shift does not apply)`,
      parseIntentSignal,
      DEMO_DEFAULTS.intentSignal,
    )
    .option('--truth-file <path>', "write each user's true parameters and oracle probabilities (.ndjson/.jsonl: one user per line; else JSON)")
    .option(
      '--horizon-days <h>',
      'horizon of the oracle probabilities in the truth file, after the cutoff now - h',
      parseWholeNumber('--horizon-days'),
      DEFAULT_HORIZON_DAYS,
    )
    .action((options: SeedOptions, command: Command) => {
      if (options.intentSignal === 'saas' && options.shift !== 0) command.error('error: --shift drifts the events and screens populations only; the saas mode has none');
      return context.run(async (app, { json }) => {
        // Ingestion trusts its caller for the organization; an unknown id must not leave orphan events.
        await app.get(OrganizationsService).get(options.org);
        const ingest = app.get(IngestService);
        const { users, days, seed, shift, userPrefix, intentSignal } = options;
        const generation: DemoSeedOptions = { users, days, seed, shift, userPrefix, intentSignal, now: new Date() };
        const truth = options.truthFile
          ? await DemoTruthFile.create(options.truthFile, {
              seed: options.seed,
              shift: options.shift,
              intentSignal: options.intentSignal,
              userPrefix: options.userPrefix,
              days: options.days,
              now: generation.now.toISOString(),
              cutoff: new Date(generation.now.getTime() - options.horizonDays * DAY_MS).toISOString(),
              horizonDays: options.horizonDays,
            })
          : undefined;
        let complete = false;
        try {
          const result = await seedDemo(
            generation,
            async (events) => ingest.ingestEvents(options.org, await validateEvents(events), DEMO_SEED),
            truth ? (user) => truth.add(user) : undefined,
          );
          complete = true;
          printResult(
            json,
            {
              organizationId: options.org,
              seed: options.seed,
              shift: options.shift,
              intentSignal: options.intentSignal,
              userPrefix: options.userPrefix,
              days: options.days,
              ...result,
              truthFile: options.truthFile ?? null,
            },
            [
              `org       ${options.org}`,
              `users     ${result.users} (${options.userPrefix}…, seed ${options.seed}, shift ${options.shift}, ${options.days} days)`,
              `events    ${result.events} sent, ${result.accepted} accepted, ${result.duplicates} duplicates`,
              `time      ${result.seconds.toFixed(1)} s (${Math.round(result.eventsPerSecond)} events/s)`,
              ...(options.truthFile ? [`truth     ${options.truthFile}`] : []),
            ],
          );
        } finally {
          await truth?.close(complete);
        }
      });
    });

  demo
    .command('targets')
    .description("List the target events the demo population does, with their base rates (a model's targetEvent)")
    .option('--horizon-days <h>', 'horizon of the base rates', parseWholeNumber('--horizon-days'), DEFAULT_HORIZON_DAYS)
    .action(({ horizonDays }: { horizonDays: number }) => {
      const now = new Date();
      const cutoff = new Date(now.getTime() - horizonDays * DAY_MS);
      const totals = { checkout: 0, upgrade: 0, churn: 0 };
      const population = generateDemoUsers({ ...DEMO_DEFAULTS, users: BASE_RATE_SAMPLE_USERS, days: 30 + horizonDays, now });
      let active = 0;
      for (const { truth, events } of population) {
        // The rows a model trains on: users with an event in the 30 days before the cutoff.
        if (!events.some((e) => isWithin(e.timestamp, cutoff.getTime() - 30 * DAY_MS, cutoff.getTime()))) continue;
        active++;
        for (const target of DEMO_TARGETS) totals[target] += oracleProbability(truth, target, cutoff, horizonDays);
      }
      const targets = DEMO_TARGETS.map((event) => ({ event, baseRate: totals[event] / active, description: DEMO_TARGET_DESCRIPTIONS[event] }));
      printResult(
        program.opts<{ json: boolean }>().json,
        { horizonDays, targets },
        [
          `share of recently active users doing each within ${horizonDays} days (reference population):`,
          ...targets.map((t) => `${t.event.padEnd(9)} ${(t.baseRate * 100).toFixed(1).padStart(5)}%  ${t.description}`),
        ],
      );
    });
}

function isWithin(timestamp: string | undefined, from: number, until: number): boolean {
  const at = timestamp === undefined ? NaN : Date.parse(timestamp);
  return at > from && at <= until;
}

function parseSeed(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 0xffffffff) throw new Error('--seed must be a whole number from 0 to 4294967295');
  return parsed;
}

function parseShift(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < -1 || parsed > 1) throw new Error('--shift must be a number from -1 to 1');
  return parsed;
}

/** User ids end up in messageIds (at most 128 characters), hence the length limit. */
function parseUserPrefix(value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,40}$/.test(value)) throw new Error('--user-prefix takes 1 to 40 letters, digits or _ . : -');
  return value;
}

function parseIntentSignal(value: string): DemoIntentSignal {
  const signal = DEMO_INTENT_SIGNALS.find((known) => known === value);
  if (!signal) throw new Error(`--intent-signal must be one of ${DEMO_INTENT_SIGNALS.join(', ')}; got "${value}"`);
  return signal;
}
