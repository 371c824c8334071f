// `npm run emulator -- [flags]`: runs the emulator until SIGINT/SIGTERM. See README.md.
import { parseArgs } from 'node:util';
import { DEFAULT_API_KEY, DEFAULT_USER_ID, defaultDataDir, startEmulator, type EmulatorOptions } from './server';

const USAGE = `Usage: npm run emulator -- [options]
  --port <n>              port on 127.0.0.1 (default 8787; 0 = any free port)
  --host <h>              loopback host: 127.0.0.1, ::1 or localhost (default 127.0.0.1)
  --data-dir <dir>        data folder (default ${defaultDataDir()})
  --api-key <key>         API key (default ${DEFAULT_API_KEY})
  --user-id <id>          user id of that key (default ${DEFAULT_USER_ID})
  --step-ms <n>           milliseconds per file processing state (default 200)
  --token-delay-ms <n>    milliseconds between streamed chunks (default 15)
  --response-words <n>    length of the local responder's answers (default 60)
  --max-upload-mb <n>     upload size limit in MB (default 2048)
  --test-controls         enable /_emulator/* fault injection and stats endpoints
  --upstream-url <url>    OpenAI-compatible base URL to forward completions to (e.g. http://127.0.0.1:11434/v1)
  --upstream-key <key>    API key for the upstream
  --upstream-model <id>   model id to ask the upstream for
  --dialect <d>           serve the open shapes in another form: a preset (dify, openai, fastapi, plain, proxy)
                          or key=value pairs, e.g. kind=type-field,text=content,end=message_end (see README)
  --quiet                 do not log requests
  --help`;

function numberFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} must be a non-negative number, got "${value}"`);
  return parsed;
}

function portFlag(value: string | undefined): number {
  if (value === undefined) return 8787;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535, got "${value}"`);
  return port;
}

function parseOptions(argv: string[]): EmulatorOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      'api-key': { type: 'string' },
      'user-id': { type: 'string' },
      'step-ms': { type: 'string' },
      'token-delay-ms': { type: 'string' },
      'response-words': { type: 'string' },
      'max-upload-mb': { type: 'string' },
      'test-controls': { type: 'boolean' },
      'upstream-url': { type: 'string' },
      'upstream-key': { type: 'string' },
      'upstream-model': { type: 'string' },
      dialect: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return undefined;
  const userId = values['user-id'] ?? DEFAULT_USER_ID;
  if (!/^[A-Za-z0-9._@-]{1,128}$/.test(userId)) throw new Error('--user-id may use letters, digits and . _ @ - (up to 128)');
  const maxUploadMb = numberFlag(values['max-upload-mb'], 'max-upload-mb');
  return {
    host: values.host,
    port: portFlag(values.port),
    dataDir: values['data-dir'],
    apiKeys: { [values['api-key'] ?? DEFAULT_API_KEY]: userId },
    stepMs: numberFlag(values['step-ms'], 'step-ms'),
    tokenDelayMs: numberFlag(values['token-delay-ms'], 'token-delay-ms'),
    responseWords: numberFlag(values['response-words'], 'response-words'),
    maxUploadBytes: maxUploadMb === undefined ? undefined : Math.floor(maxUploadMb * 1024 * 1024),
    testControls: values['test-controls'] === true,
    upstream: values['upstream-url'] ? { baseUrl: values['upstream-url'], apiKey: values['upstream-key'], model: values['upstream-model'] } : undefined,
    dialect: values.dialect,
    log: values.quiet ? () => undefined : (line: string) => console.log(line),
  };
}

async function main(): Promise<void> {
  let options: EmulatorOptions | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!options) {
    console.log(USAGE);
    return;
  }
  const emulator = await startEmulator(options);
  console.log(`KSM emulator listening on ${emulator.url}`);
  console.log(`API key: ${emulator.apiKey} (user id ${emulator.userId}, personal volume {${emulator.userId}})`);
  console.log(`data folder: ${emulator.dataDir}`);
  console.log('models: emu-chat, emu-reasoner; embedding model: emu-embed' + (options.upstream ? `; completions forwarded to ${options.upstream.baseUrl}` : ''));
  if (options.testControls) console.log('test controls on: /_emulator/faults, /_emulator/stats');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    emulator.close().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`error while stopping: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: Error) => {
  console.error(`the emulator could not start: ${error.message}`);
  process.exit(1);
});
