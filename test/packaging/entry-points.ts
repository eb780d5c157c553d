import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPOSITORY } from './chart';

export type App = 'api' | 'worker' | 'cli';

const { config, error } = ts.readConfigFile(join(REPOSITORY, 'tsconfig.build.json'), (path) => ts.sys.readFile(path)) as { config: unknown; error?: ts.Diagnostic };
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const { outDir = '', rootDir = '' } = ts.parseJsonConfigFileContent(config, ts.sys, REPOSITORY).options;

/**
 * Where `npm run build` puts an app's entry point, relative to the repository root: tsc mirrors
 * apps/<app>/src/main.ts from rootDir into outDir (tsconfig.build.json extends tsconfig.json).
 */
export function entryPoint(app: App): string {
  const source = join(REPOSITORY, 'apps', app, 'src', 'main.ts');
  return relative(REPOSITORY, join(outDir, relative(rootDir, source))).replace(/\.ts$/, '.js');
}
