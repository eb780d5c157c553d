import type { Command } from 'commander';
import { MonitoringRunService } from '@foresight/predictions';
import type { CliContext } from '../cli-context';
import { printResult } from '../output';

export function registerMonitorCommands(program: Command, context: CliContext): void {
  const monitor = program.command('monitor').description('Model monitoring (live accuracy, latency, throughput, drift)');

  monitor
    .command('run')
    .description('Run the monitoring job now for every serving model, as the schedule (MONITORING_SCHEDULE) does: one snapshot each')
    .action(() =>
      context.run(async (app, { json }) => {
        const startedAt = new Date();
        const models = await app.get(MonitoringRunService).runAll();
        printResult(json, { models, startedAt: startedAt.toISOString() }, [`monitored ${models} serving model(s) at ${startedAt.toISOString()}`]);
      }),
    );
}
