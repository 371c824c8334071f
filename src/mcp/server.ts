// The MCP server's tools: a thin front end over the retrieval engine
// (src/volumes/core/retrieval.ts), which the LM tools and the CLI call too. Four tools with
// titles, input and output schemas and annotations; results in `structuredContent` and,
// for older clients, the same JSON as text. Every failure is a tool result with
// `isError: true` and one sentence a model can act on, never the API key; the server
// survives every call. Logs go to stderr only (stdout is the stdio transport).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { answerSecrets } from '../api/answerRedaction';
import { secretsRedactor, type Redactor } from '../api/redact';
import { jsonText } from '../common/core/untrustedText';
import {
  checkListFilesInput,
  checkSearchInput,
  DEFAULT_SEARCH_LIMIT,
  failureText,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  PERSONAL_VOLUME_LABEL,
  RetrievalError,
  volumeLabel,
  type Retrieval,
  type RetrievalScope,
} from '../volumes/core/retrieval';
import { uploadFromFolder, type FolderUploadOptions } from './upload';

export const MCP_TOOL_NAMES = ['search', 'fetch', 'list_files', 'ask'] as const;

const MAX_SNIPPET_CHARS = 600;
const MAX_QUESTION_CHARS = 8_000;

export interface KsmMcpDeps {
  retrieval: Retrieval;
  /** The scope for one call; throws (a ConfigurationError) when the environment is incomplete. */
  scope(signal: AbortSignal): RetrievalScope;
  /** Strings that must never appear in a result (the API key). */
  secrets(): ReadonlyArray<string | undefined>;
  /** The front end's sentence for a service or configuration error (it names the environment variables to set). */
  describe?(error: unknown): string;
  /** One line to stderr. */
  log(line: string): void;
  version: string;
  /** `--allow-upload <folder>`: the `upload` tool exists only with this. */
  upload?: FolderUploadOptions;
}

const passageOut = {
  id: z.string().describe('Pass to fetch for the whole passage.'),
  title: z.string().describe('The file name.'),
  url: z.string().describe('ksm:// URI of the passage.'),
  volume: z.string().describe(`The volume ('${PERSONAL_VOLUME_LABEL}' is the personal one).`),
};

export function createKsmMcpServer(deps: KsmMcpDeps): McpServer {
  const server = new McpServer(
    { name: 'ksm', title: 'KSM volumes', version: deps.version },
    {
      instructions:
        "Search the user's KSM document volumes with `search`, then read a result whole with `fetch` (pass its `id`). `list_files` shows a volume's files and their processing status; `ask` puts a question to the KSM RAG agent, which answers with citations and a thread_id to continue.",
    },
  );

  /** Runs one tool: a thrown error becomes a tool error with a safe sentence. */
  const run = async (tool: string, extra: { signal: AbortSignal }, body: (scope: RetrievalScope) => Promise<{ structured: Record<string, unknown> }>): Promise<CallToolResult> => {
    try {
      const scope = deps.scope(extra.signal);
      // The client removes the key from answers (answerRedaction.ts); a file name or a volume's listing may still
      // echo it. Only the secrets themselves are removed (a guide's "Bearer <token>" stays), none too short to be told from words.
      const structured = redacted((await body(scope)).structured, secretsRedactor(answerSecrets(deps.secrets())));
      // The same JSON as text for older clients; a bidi override in a file name cannot reorder what the user sees there.
      return { content: [{ type: 'text', text: jsonText(structured) }], structuredContent: structured };
    } catch (error) {
      // A retrieval error that wraps a service error is described by the front end (its sentence names KSM_API_KEY, not a VS Code command).
      const underlying = error instanceof RetrievalError && error.cause !== undefined ? error.cause : error;
      const described = underlying instanceof RetrievalError || !deps.describe ? failureText(underlying, deps.secrets()) : failureText(new RetrievalError(deps.describe(underlying)), deps.secrets());
      const text = described.split('\n')[0]!.trim() || 'The request failed.';
      deps.log(`tool ${tool} failed: ${text}`);
      return { content: [{ type: 'text', text }], isError: true };
    }
  };
  const refuse = (checked: { ok: false; message: string }): never => {
    throw new RetrievalError(checked.message);
  };

  server.registerTool(
    'search',
    {
      title: 'Search KSM volumes',
      description: `Searches the user's KSM document volumes (their personal volume '${PERSONAL_VOLUME_LABEL}' and the named volumes this server may read) and returns the best-matching passages, each with an id for fetch, the file name, the volume and a short excerpt. Only files whose processing is done are searched.`,
      inputSchema: {
        query: z.string().describe(`What to look for: a question or key terms (at most ${MAX_QUERY_CHARS} characters).`),
        volumes: z.array(z.string()).optional().describe(`Named volumes to search besides '${PERSONAL_VOLUME_LABEL}'. Default: all of this server's volumes.`),
        limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe(`How many results at most (default ${DEFAULT_SEARCH_LIMIT}).`),
      },
      outputSchema: {
        query: z.string(),
        results: z.array(z.object({ ...passageOut, text: z.string().describe('An excerpt of the passage.'), score: z.number().optional() })),
      },
      annotations: { title: 'Search KSM volumes', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run('search', extra, async (scope) => {
        const checked = checkSearchInput(args, scope);
        if (!checked.ok) refuse(checked);
        const input = (checked as { ok: true; value: Parameters<Retrieval['search']>[0] }).value;
        const passages = await deps.retrieval.search({ ...input, limit: input.limit ?? DEFAULT_SEARCH_LIMIT }, scope);
        return {
          structured: {
            query: input.query,
            results: passages.map((p) => ({
              id: p.id,
              title: p.filename,
              url: p.id,
              volume: p.volumeLabel,
              text: excerpt(p.text),
              ...(p.score !== undefined ? { score: p.score } : {}),
            })),
          },
        };
      }),
  );

  server.registerTool(
    'fetch',
    {
      title: 'Fetch a KSM passage',
      description:
        "Returns the whole text of a search result by its id (ksm://<volume>/<file id>#<chunk>), with its file name, volume and the file's status. An id without '#<chunk>' returns every passage of that file the service returns.",
      inputSchema: { id: z.string().describe("The 'id' of a search or ask result.") },
      outputSchema: {
        id: z.string(),
        title: z.string(),
        text: z.string(),
        url: z.string(),
        metadata: z.object({
          volume: z.string(),
          file_id: z.string(),
          chunk: z.number().optional(),
          status: z.string().optional(),
          size: z.number().optional(),
          passages: z.array(z.string()).optional(),
        }),
      },
      annotations: { title: 'Fetch a KSM passage', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run('fetch', extra, async (scope) => {
        const doc = await deps.retrieval.fetch(args.id, scope);
        return {
          structured: {
            id: doc.id,
            title: doc.filename,
            text: doc.text,
            url: doc.id,
            metadata: {
              volume: doc.volumeLabel,
              file_id: doc.fileId,
              ...(doc.chunkIndex !== undefined ? { chunk: doc.chunkIndex } : {}),
              ...(doc.file ? { status: doc.file.status, size: doc.file.size } : {}),
              ...(doc.passages ? { passages: doc.passages.map((p) => p.id) } : {}),
            },
          },
        };
      }),
  );

  server.registerTool(
    'list_files',
    {
      title: 'List files of a KSM volume',
      description: `Lists the files of one KSM volume with id, size and processing status (uploaded, waiting, chunking, embedding, indexing, done, or na). Only 'done' files are searchable.`,
      inputSchema: { volume: z.string().optional().describe(`The volume to list. Default: '${PERSONAL_VOLUME_LABEL}'.`) },
      outputSchema: {
        volume: z.string(),
        files: z.array(z.object({ id: z.string(), name: z.string(), status: z.string(), size: z.number(), detail: z.string().optional() })),
        more: z.boolean().describe('True when only the first files are listed.'),
      },
      annotations: { title: 'List files of a KSM volume', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run('list_files', extra, async (scope) => {
        const checked = checkListFilesInput(args, scope);
        if (!checked.ok) refuse(checked);
        const { volume } = (checked as { ok: true; value: { volume: string } }).value;
        const listing = await deps.retrieval.listFiles({ volume }, scope);
        return {
          structured: {
            volume: volumeLabel(volume),
            files: listing.files.map((f) => ({ id: f.uuid, name: f.filename, status: f.status, size: f.filesize, ...(f.statusDetail ? { detail: f.statusDetail } : {}) })),
            more: listing.more,
          },
        };
      }),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask the KSM agent',
      description: 'Puts a question to the KSM RAG agent, which searches the volumes and answers with citations. Pass the returned thread_id to continue the same conversation.',
      inputSchema: {
        question: z.string().describe('The question.'),
        thread_id: z.string().optional().describe('Continue this thread (from an earlier ask).'),
        volumes: z.array(z.string()).optional().describe(`Named volumes the agent searches besides '${PERSONAL_VOLUME_LABEL}'. Default: all of this server's volumes.`),
      },
      outputSchema: {
        answer: z.string(),
        thread_id: z.string().optional(),
        citations: z.array(z.object(passageOut)),
      },
      annotations: { title: 'Ask the KSM agent', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args, extra) =>
      run('ask', extra, async (scope) => {
        const question = args.question.trim();
        if (!question) throw new RetrievalError("'question' is required: what to ask the agent.");
        if (question.length > MAX_QUESTION_CHARS) throw new RetrievalError(`'question' is too long (${question.length} characters; at most ${MAX_QUESTION_CHARS}).`);
        if (args.thread_id !== undefined && !/^[\w.:-]{1,200}$/.test(args.thread_id)) throw new RetrievalError("'thread_id' is not a thread id: pass the thread_id an earlier ask returned.");
        let volumes: string[] | undefined;
        if (args.volumes) {
          const checked = checkSearchInput({ query: question.slice(0, MAX_QUERY_CHARS), volumes: args.volumes }, scope);
          if (!checked.ok) refuse(checked);
          volumes = (checked as { ok: true; value: { volumes?: string[] } }).value.volumes;
        }
        const result = await deps.retrieval.ask({ question, threadId: args.thread_id, volumes }, scope);
        return {
          structured: {
            answer: result.answer,
            ...(result.threadId ? { thread_id: result.threadId } : {}),
            citations: result.passages.map((p) => ({ id: p.id, title: p.filename, url: p.id, volume: p.volumeLabel })),
          },
        };
      }),
  );

  const upload = deps.upload;
  if (upload) {
    server.registerTool(
      'upload',
      {
        title: 'Upload files to a KSM volume',
        description: `Uploads files from ${upload.folder} (paths relative to it, or absolute inside it; nothing else) to a KSM volume, so search finds them once processed. Private files are refused with the reason: .env*, keys and certificates, files in .git/ or .ssh/, .gitignored files, symbolic links leading out.`,
        inputSchema: {
          paths: z.array(z.string()).describe(`Files inside ${upload.folder} (at most 20).`),
          volume: z.string().optional().describe(`The volume to upload to. Default: '${PERSONAL_VOLUME_LABEL}'.`),
        },
        outputSchema: {
          volume: z.string(),
          uploaded: z.array(z.object({ id: z.string(), name: z.string(), status: z.string() })),
          refused: z.array(z.object({ path: z.string(), reason: z.string() })),
          failed: z.array(z.object({ name: z.string(), reason: z.string() })),
        },
        annotations: { title: 'Upload files to a KSM volume', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      (args, extra) =>
        run('upload', extra, async (scope) => {
          const result = await uploadFromFolder(args, upload, scope);
          return {
            structured: {
              volume: volumeLabel(result.volume),
              uploaded: result.uploaded.map((f) => ({ id: f.uuid, name: f.filename, status: f.status })),
              refused: result.refused,
              failed: result.failed,
            },
          };
        }),
    );
  }

  return server;
}

/** `value` with `redact` applied to every string in it. */
function redacted<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redacted(item, redact)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redacted(item, redact)])) as T;
  return value;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SNIPPET_CHARS ? `${flat.slice(0, MAX_SNIPPET_CHARS - 1)}…` : flat;
}
