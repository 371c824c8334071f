// PLACEHOLDER until src/api/client.ts lands (issue 4): replaced by the real factory that
// builds a KsmClient from settings, SecretStorage and VS Code's proxy settings.
import { ConfigurationError } from '../api/errors';
import type { KsmService } from '../api/service';
import type { ApiKeyStore } from './apiKey';
import type { Log } from './log';

export function createClientFromSettings(_apiKey: ApiKeyStore, _log: Log): KsmService {
  throw new ConfigurationError('The service client is not available yet in this build.');
}
