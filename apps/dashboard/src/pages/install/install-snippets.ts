/** One way to send events to this deployment: what to install and the lines to paste. */
export interface Snippet {
  platform: string;
  sdk: string;
  /** The command that installs it, when it is a package. */
  install?: string;
  code: string;
  /** What to know before pasting it. */
  note?: string;
}

/** The npm tarballs this deployment serves of its own SDKs (no registry serves them), under /sdk. */
export const sdkTarball = (origin: string, name: 'node' | 'react-native', version: string): string => `${origin}/sdk/foresight-${name}-${version}.tgz`;

const MOBILE = new Set(['React Native', 'iOS', 'Android', 'Flutter']);
const HTTPS_ONLY =
  'Mobile apps send over HTTPS only (iOS App Transport Security, Android’s cleartext policy): give them this deployment’s https:// address. A plain http:// address such as http://localhost works only on a simulator or emulator with a development exception.';

/**
 * The snippets of every supported SDK for this deployment's address (`origin`, e.g.
 * https://foresight.example.com), a token (the one just created, or a placeholder) and the version
 * of the SDK packages it serves.
 */
export function installSnippets(origin: string, token: string, version: string): Snippet[] {
  const host = origin.replace(/^https?:\/\//, '');
  const snippets: Snippet[] = [
    {
      platform: 'Browser',
      sdk: 'Foresight web SDK',
      code: `<script src="${origin}/sdk/foresight.js"></script>\n<script>\n  Foresight.init('${token}');\n  Foresight.track('signed_up');\n</script>`,
    },
    { platform: 'Node', sdk: '@foresight/node', install: `npm install ${sdkTarball(origin, 'node', version)}`, code: `import { Foresight } from '@foresight/node';\n\nconst foresight = Foresight.init('${token}', { host: '${origin}' });\nforesight.track({ event: 'signed_up', userId: 'user-42' });` },
    {
      platform: 'React Native',
      sdk: '@foresight/react-native',
      install: `npm install ${sdkTarball(origin, 'react-native', version)} @react-native-async-storage/async-storage`,
      code: `import { Foresight } from '@foresight/react-native';\n\nForesight.initialize('${token}', { host: '${origin}' });`,
    },
    { platform: 'iOS', sdk: 'Segment analytics-swift', code: `Analytics(configuration: Configuration(writeKey: "${token}")\n  .apiHost("${host}/v1")\n  .cdnHost("${host}/v1"))` },
    { platform: 'iOS', sdk: 'RudderStack rudder-sdk-swift', code: `Configuration(writeKey: "${token}", dataPlaneUrl: "${origin}", controlPlaneUrl: "${origin}")` },
    { platform: 'Android', sdk: 'Segment analytics-kotlin', code: `Analytics("${token}", applicationContext) {\n  apiHost = "${host}/v1"\n  cdnHost = "${host}/v1"\n}` },
    { platform: 'Android', sdk: 'RudderStack rudder-sdk-kotlin', code: `Configuration(writeKey = "${token}", application = this, dataPlaneUrl = "${origin}", controlPlaneUrl = "${origin}")` },
    { platform: 'Flutter', sdk: 'Segment analytics_flutter', code: `createClient(Configuration("${token}", apiHost: "${host}/v1", cdnHost: "${host}/v1"))` },
    { platform: 'Flutter', sdk: 'RudderStack rudder-sdk-flutter', code: `rudderClient.initialize("${token}",
  config: RudderConfigBuilder().withDataPlaneUrl("${origin}").withControlPlaneUrl("${origin}").build())` },
    {
      platform: 'React Native',
      sdk: 'Segment analytics-react-native',
      code: `createClient({ writeKey: '${token}', proxy: '${origin}/v1', cdnProxy: '${origin}/v1', useSegmentEndpoints: true })`,
    },
    { platform: 'React Native', sdk: 'RudderStack rudder-sdk-react-native', code: `rudderClient.setup('${token}', { dataPlaneUrl: '${origin}', controlPlaneUrl: '${origin}' })` },
  ];
  return snippets.map((snippet) => (MOBILE.has(snippet.platform) ? { ...snippet, note: HTTPS_ONLY } : snippet));
}
