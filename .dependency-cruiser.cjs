/**
 * The layering of ARCHITECTURE.md, checked by `npm run lint` (dependency-cruiser): apps depend on libs,
 * never on another app; libs depend only downward in the documented order and never on an app; a lib
 * is reached from outside only through its public index by its `@foresight/<lib>` alias; no cycles.
 * The SDK packages (libs/sdk-*) run in browsers and apps: they share nothing with the server libs.
 */

/** Lowest first: a lib may import only libs before it (ARCHITECTURE.md, "Arrows point down only"). */
const LAYERS = ['platform', 'auth', 'events', 'features', 'models', 'predictions', 'privacy', 'webhooks', 'demo'];
const SERVER_LIBS = `^libs/(${LAYERS.join('|')})/`;

const downwardOnly = LAYERS.slice(0, -1).map((lib, index) => ({
  name: `${lib}-only-downward`,
  comment: `libs/${lib} may use only the libs below it: ${LAYERS.slice(0, index).join(', ') || 'none'} (ARCHITECTURE.md).`,
  severity: 'error',
  from: { path: `^libs/${lib}/` },
  to: { path: `^libs/(${LAYERS.slice(index + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: cut it with an interface the lower module defines, or an event (STYLE.md rule 2).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...downwardOnly,
    {
      name: 'lib-not-in-layer-order',
      comment: 'A lib that uses other libs must have a place in the layer order: add it to ARCHITECTURE.md and to LAYERS here.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/', pathNot: [SERVER_LIBS, '^libs/sdk-'] },
      to: { path: '^libs/([^/]+)/', pathNot: '^libs/$1/' },
    },
    {
      name: 'lib-not-to-app',
      comment: 'Libs are used by the apps, never the other way round.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'app-not-to-other-app',
      comment: 'An app is a composition of libs; what two apps share belongs in a lib (apps/api never imports apps/worker).',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'lib-through-public-index',
      comment: "Another lib is used only through its public index, by its alias (`@foresight/<lib>`), never by a deep or relative path.",
      severity: 'error',
      from: { path: '^(apps|libs)/([^/]+)/', pathNot: '^libs/sdk-' },
      to: {
        path: '^libs/([^/]+)/',
        // The API's generated OpenAPI types and the route table built on them are public too: the
        // dashboard's client is that table bound to the browser's fetch.
        pathNot: ['^libs/$2/', '^libs/[^/]+/src/index\\.ts$', '^libs/platform/src/tracing/index\\.ts$', '^libs/sdk-node/src/generated/openapi\\.ts$', '^libs/sdk-node/src/routes\\.ts$'],
      },
    },
    {
      name: 'lib-by-alias',
      comment: "Another lib's index is imported by its alias (`@foresight/<lib>`), not by a relative path.",
      severity: 'error',
      from: { path: '^(apps|libs)/([^/]+)/', pathNot: '^libs/sdk-' },
      to: { path: '^libs/([^/]+)/src/(tracing/)?index\\.ts$', pathNot: '^libs/$2/', dependencyTypesNot: ['aliased-tsconfig-paths'] },
    },
    {
      name: 'sdk-self-contained',
      comment: 'The SDK packages ship to browsers and apps: they use no server lib and no app.',
      severity: 'error',
      // Its tests may check the packages against the server's own code (a webhook signed as the server signs).
      from: { path: '^libs/sdk-', pathNot: '\\.spec\\.ts$' },
      to: { path: ['^apps/', SERVER_LIBS] },
    },
    {
      name: 'server-not-to-sdk',
      comment: 'The server does not depend on the SDK packages.',
      severity: 'error',
      from: { path: ['^apps/', SERVER_LIBS] },
      to: { path: '^libs/sdk-', pathNot: ['^libs/sdk-node/src/generated/openapi\\.ts$', '^libs/sdk-node/src/routes\\.ts$'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing on disk.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'Production code imports only dependencies: the image installs without devDependencies (docker/Dockerfile).',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: ['\\.(spec|e2e-spec|fixture)\\.ts$', '^libs/sdk-'] },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-non-package-json',
      comment: 'A package imported but not declared in package.json (it works only by accident of hoisting).',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Type-only imports count: a layer violation is one whether or not it survives compilation.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
  },
};
