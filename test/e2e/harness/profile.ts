// Which real VS Code an e2e run drives. The default profile is code-server 4.100.3 (VS Code
// 1.100, Node 20): the panel, and a VSIX that installs where VS Code's own Chat APIs do
// not exist. The `native` profile is code-server 4.139.1 (VS Code 1.139, Node 24) with its
// built-in Chat, for the KSM models, tools and @ksm participant. A profile is chosen per
// mocha process (test/e2e/native/.mocharc.json requires native/profile.ts first).

export interface E2EProfile {
  readonly name: 'vscode-1.100' | 'native';
  /** scripts/<setupScript> installs (once per machine) and prints the launcher. */
  readonly setupScript: string;
  /** Extra user settings on top of the shared ones. */
  readonly userSettings: Readonly<Record<string, unknown>>;
  /** Prefix of this profile's log files under test-results/e2e. */
  readonly logPrefix: string;
  /** Also write the machine-scoped settings to <user-data>/Machine/settings.json. */
  readonly machineSettings: boolean;
}

const DEFAULT_PROFILE: E2EProfile = { name: 'vscode-1.100', setupScript: 'setup-code-server.sh', userSettings: {}, logPrefix: '', machineSettings: false };

export const NATIVE_PROFILE: E2EProfile = {
  name: 'native',
  setupScript: 'setup-code-server-native.sh',
  // Measured offline: with anonymous access the built-in
  // Chat runs fully offline on an extension's model; onboarding would cover the chat.
  userSettings: {
    'chat.allowAnonymousAccess': true,
    'workbench.welcomePage.experimentalOnboarding': false,
    'workbench.startupEditor': 'none',
  },
  logPrefix: 'native-',
  machineSettings: true,
};

let current: E2EProfile = DEFAULT_PROFILE;

export function useProfile(profile: E2EProfile): void {
  current = profile;
}

export function e2eProfile(): E2EProfile {
  return current;
}
