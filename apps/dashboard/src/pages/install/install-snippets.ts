/** One way to send events to this deployment: what to install and the lines to paste. */
export interface Snippet {
  platform: string;
  sdk: string;
  code: string;
}

/**
 * The snippets of every supported SDK for this deployment's address (`origin`, e.g.
 * https://foresight.example.com) and a token (the one just created, or a placeholder).
 */
export function installSnippets(origin: string, token: string): Snippet[] {
  const host = origin.replace(/^https?:\/\//, '');
  return [
    {
      platform: 'Browser',
      sdk: 'Foresight web SDK',
      code: `<script src="${origin}/sdk/foresight.js"></script>\n<script>\n  Foresight.init('${token}');\n  Foresight.track('signed_up');\n</script>`,
    },
    { platform: 'Node', sdk: '@foresight/node', code: `import { Foresight } from '@foresight/node';\n\nconst foresight = Foresight.init('${token}', { host: '${origin}' });\nforesight.track({ event: 'signed_up', userId: 'user-42' });` },
    { platform: 'React Native', sdk: '@foresight/react-native', code: `import { Foresight } from '@foresight/react-native';\n\nForesight.initialize('${token}', { host: '${origin}' });` },
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
}
