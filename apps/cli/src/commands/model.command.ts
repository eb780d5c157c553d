import type { Command } from 'commander';
import { AuditLogService, OrganizationsService } from '@foresight/auth';
import { createModelSchema, ModelsService, type ModelWithVersion, predictionText } from '@foresight/models';
import { invalidRequest } from '@foresight/platform';
import { ScoringRunsService } from '@foresight/predictions';
import type { CliContext } from '../cli-context';
import { parseWholeNumber, printResult } from '../output';
import { ProgressBar } from '../progress-bar';

/** How often `model score` reads its run's progress. */
const PROGRESS_POLL_MS = 250;

interface CreateOptions {
  org: string;
  name: string;
  kind?: string;
  target?: string;
  valueProperty?: string;
  activeDays?: number;
  horizonDays?: number;
  algorithm?: string;
  schedule?: string;
}

export function registerModelCommands(program: Command, context: CliContext): void {
  const model = program.command('model').description('Prediction models');

  model
    .command('create')
    .description('Create a model predicting whether a user does the target event (or no event at all, or how much of a property) within the horizon')
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--name <name>', 'model name, e.g. checkout_7d (used as "model" in predictions)')
    .option('--kind <kind>', 'event (default), inactivity or value')
    .option('--target <event>', 'the event to predict, e.g. checkout (event and value models)')
    .option('--value-property <property>', 'value models: the numeric property of the target event whose sum is predicted, e.g. amount')
    .option('--active-days <days>', 'inactivity models: predict for users active within this many days (default 7)', parseWholeNumber('--active-days'))
    .option('--horizon-days <days>', 'prediction horizon (default 7)', parseWholeNumber('--horizon-days'))
    .option('--algorithm <algorithm>', 'gbdt (default) or logistic')
    .option('--schedule <cron>', 'retrain on this cron schedule')
    .action((options: CreateOptions) =>
      context.run(async (app, { json }) => {
        const parsed = createModelSchema.safeParse({
          name: options.name,
          kind: options.kind,
          targetEvent: options.target,
          valueProperty: options.valueProperty,
          activeDays: options.activeDays,
          horizonDays: options.horizonDays,
          algorithm: options.algorithm,
          schedule: options.schedule,
        });
        if (!parsed.success) throw invalidRequest(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
        await app.get(OrganizationsService).get(options.org);
        const created = await app.get(ModelsService).create(options.org, parsed.data);
        await app.get(AuditLogService).recordCli(options.org, 'model.create', created.model.id);
        printResult(json, { model: modelView(created) }, modelLines(created));
      }),
    );

  model
    .command('retrain')
    .description('Start a training run (a worker must be running: `npm run start:worker`, or WORKER_MODE=inline)')
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--model <modelId>', 'model id (mdl_…)')
    .action((options: { org: string; model: string }) =>
      context.run(async (app, { json }) => {
        const started = await app.get(ModelsService).retrain(options.org, options.model);
        await app.get(AuditLogService).recordCli(options.org, 'model.retrain', started.modelId);
        printResult(json, { ...started, startedAt: started.startedAt.toISOString() }, [
          `model     ${started.modelId}`,
          `status    retraining since ${started.startedAt.toISOString()}`,
        ]);
      }),
    );

  model
    .command('score')
    .description('Score every user active within the feature window with the models (one pass; a worker runs it) and log the predictions; shows progress until done')
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--model <modelId...>', 'model id (mdl_…); give several to score them in one pass')
    .action((options: { org: string; model: string[] }) =>
      context.run(async (app, { json }) => {
        const runs = app.get(ScoringRunsService);
        let run = await runs.startManual(options.org, options.model);
        for (const modelId of options.model) await app.get(AuditLogService).recordCli(options.org, 'model.score', modelId);
        const bar = new ProgressBar('users');
        while (run.state === 'queued' || run.state === 'running') {
          if (run.total !== null) bar.draw(run.scored, run.total);
          await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
          run = await runs.get(options.org, run.id);
        }
        bar.draw(run.scored, run.total ?? run.scored);
        bar.end();
        if (run.state === 'failed') throw new Error(`scoring run ${run.id} failed: ${run.error ?? 'unknown error'}`);
        const seconds = run.startedAt && run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : null;
        printResult(json, { run: run.id, state: run.state, scored: run.scored, total: run.total, changed: run.changed, seconds }, [
          `run       ${run.id}`,
          `scored    ${run.scored} of ${run.total ?? '?'} users`,
          `changed   ${run.changed} labels`,
          ...(seconds === null ? [] : [`took      ${seconds.toFixed(1)} s`]),
        ]);
      }),
    );

  model
    .command('list')
    .description("List an organization's models")
    .requiredOption('--org <organizationId>', 'organization')
    .action((options: { org: string }) =>
      context.run(async (app, { json }) => {
        const models = await app.get(ModelsService).list(options.org);
        printResult(
          json,
          { models: models.map(modelView) },
          models.map(({ model: m, serving }) => `${m.id}  ${m.status.padEnd(10)}  v${serving?.version ?? '-'}  AUC ${serving?.metrics.auc.toFixed(3) ?? '-'}  ${m.name} → ${predictionText(m)}`),
        );
      }),
    );
}

function modelView({ model, serving }: ModelWithVersion): Record<string, unknown> {
  return {
    id: model.id,
    name: model.name,
    kind: model.kind,
    targetEvent: model.targetEvent,
    activeDays: model.activeDays,
    valueProperty: model.valueProperty,
    horizonDays: model.horizonDays,
    algorithm: model.algorithm,
    status: model.status,
    version: serving?.version ?? null,
    auc: serving?.metrics.auc ?? null,
    lastError: model.lastError,
  };
}

function modelLines(entry: ModelWithVersion): string[] {
  const { model } = entry;
  return [`model     ${model.id}`, `name      ${model.name}`, `predicts  ${predictionText(model)}`, `status    ${model.status}`];
}
