// Validates Kubernetes objects against the OpenAPI schemas of their apiVersion and kind, offline:
// kubernetes-models ships the Kubernetes API's schemas compiled to validators (Prometheus Operator's
// CRDs in @kubernetes-models/prometheus-operator). Both are ES modules only, which Jest's CommonJS
// runtime cannot load, so chart.ts runs this file in a child process: objects as a JSON array on
// stdin, one line per problem on stdout.
import { readFileSync } from 'node:fs';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator';
import * as kubernetes from 'kubernetes-models';

/** Every model class exported by a package's nested namespaces, by "apiVersion/kind". */
function modelsOf(namespace, models = new Map()) {
  for (const exported of Object.values(namespace)) {
    if (typeof exported === 'function' && typeof exported.apiVersion === 'string' && typeof exported.kind === 'string') {
      models.set(`${exported.apiVersion}/${exported.kind}`, exported);
    } else if (typeof exported === 'object' && exported !== null) {
      modelsOf(exported, models);
    }
  }
  return models;
}

const models = modelsOf(prometheusOperator, modelsOf(kubernetes));
const objects = JSON.parse(readFileSync(0, 'utf8'));
for (const object of objects) {
  const name = `${object.kind}/${object.metadata?.name}`;
  const Model = models.get(`${object.apiVersion}/${object.kind}`);
  if (!Model) {
    console.log(`${name}: no schema for apiVersion ${object.apiVersion}`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    for (const problem of error.errors ?? [error]) console.log(`${name}: ${problem.instancePath ?? ''} ${problem.message}`);
  }
}
