// The key out of what the service answers. A model can be made to repeat the key (a
// document that quotes it, an upstream that puts the request into the prompt), and an
// answer goes to the chat panel, VS Code's Chat, a terminal and an agent's model: the
// client removes it here, once, so no front end can forget to. Errors are redacted in
// httpErrors.ts; this is the answer's own text, its reasoning, tool-call arguments and
// citations.
//
// A streamed answer arrives in pieces, and a piece may end in the middle of the key. So
// each text channel (a choice's content, its reasoning, one tool call's arguments, an
// agent's message) holds back its tail while that tail could still be the key's start, and
// lets it go as soon as the next piece shows it is not: in any of the encodings the matcher
// knows (JSON escapes, URL and HTML encoding, each character in any of them; redact.ts), so
// an encoded key split between pieces is removed as the literal one is. Ordinary text never
// matches, so it streams without delay (a last word that could begin an encoding, such as
// one ending in `%`, waits for the next piece).
import { encodedPrefixMatcher, REDACTED, secretsRedactor, type Redactor } from './redact';
import type { AgentEvent, AgentMessage, ChatCompletion, ChatCompletionChunk, Citation } from './types';

/** A shorter secret (a test token like 'dev') is not removed from answers: it would cut words and ids apart. */
export const MIN_ANSWER_SECRET_CHARS = 8;

/** The secrets long enough to be told from words. */
export function answerSecrets(secrets: ReadonlyArray<string | undefined>): string[] {
  return secrets.filter((secret): secret is string => (secret?.length ?? 0) >= MIN_ANSWER_SECRET_CHARS);
}

/** What every encoded form of a character holds (JSON, URL and form encoding, HTML references): see redact.ts. */
const ESCAPE_SIGNS = /[%&\\+]/;

/** Removes the secrets from text that arrives in pieces, per channel. */
export class StreamingSecretFilter {
  private readonly held = new Map<string, string>();
  private readonly redact: Redactor;
  private readonly secrets: string[];
  private readonly shortest: number;
  private readonly starts: string[];
  /** Per secret: how long an end of a text could begin it, in any encoding. */
  private readonly heldLengths: Array<(text: string) => number>;

  constructor(secrets: ReadonlyArray<string | undefined>) {
    this.secrets = answerSecrets(secrets);
    this.redact = secretsRedactor(this.secrets);
    this.shortest = Math.min(...this.secrets.map((secret) => secret.length));
    this.starts = this.secrets.map((secret) => secret.slice(0, 2));
    this.heldLengths = this.secrets.map(encodedPrefixMatcher);
  }

  /** The part of `text` that is safe to show now; a tail that may begin the key waits for the next piece. */
  push(channel: string, text: string): string {
    if (this.secrets.length === 0) return text;
    const joined = (this.held.get(channel) ?? '') + text;
    const clean = this.mayHold(joined) ? this.redact(joined) : joined;
    let keep = 0;
    for (const heldLength of this.heldLengths) keep = Math.max(keep, heldLength(clean));
    if (keep === 0) this.held.delete(channel);
    else this.held.set(channel, clean.slice(clean.length - keep));
    return clean.slice(0, clean.length - keep);
  }

  /**
   * Whether `text` may hold a secret in some form: the matcher is skipped for the rest, as
   * this runs for every token. No form is shorter than the secret, and every form starts with
   * the secret's first two characters as they are or holds an escape's `%`, `&`, `\` or `+`.
   */
  private mayHold(text: string): boolean {
    if (text.length < this.shortest) return false;
    return this.starts.some((start) => text.includes(start)) || ESCAPE_SIGNS.test(text);
  }

  /** What `channel` still holds, at its end. A held tail long enough to be most of the key is not given out. */
  end(channel: string): string {
    const tail = this.held.get(channel) ?? '';
    this.held.delete(channel);
    return tail.length >= MIN_ANSWER_SECRET_CHARS ? REDACTED : tail;
  }

  /** The channels holding text, in the order they first held it. */
  holding(): string[] {
    return [...this.held.keys()];
  }

  /** Whole text (a non-streamed answer, a citation): the secrets in every encoding removed. */
  whole(text: string): string {
    return this.secrets.length === 0 ? text : this.redact(text);
  }
}

/**
 * What a stream yields, with the secrets removed, per item type. Items are the decoder's own
 * fresh objects, so their text is replaced in place: this runs for every token.
 */
export interface AnswerRedaction<T> {
  /** Items to yield before `item`: text still held in channels `item` ends (an agent's `done`). */
  before(item: T): T[] | undefined;
  /** `item` with the secrets removed, or undefined when all its text is held back for now. */
  pass(item: T): T | undefined;
  /** The items still held when the stream ends (its terminator, a clean close or a cut). */
  end(): T[];
}

/** No secret long enough to look for: items go out as they came. */
function passThrough<T>(): AnswerRedaction<T> {
  return { before: () => undefined, pass: (item) => item, end: () => [] };
}

function citationsClean(citations: Citation[], filter: StreamingSecretFilter): Citation[] {
  return citations.map((citation) => ({
    ...citation,
    filename: filter.whole(citation.filename),
    ...(citation.snippet === undefined ? {} : { snippet: filter.whole(citation.snippet) }),
    ...(citation.volume === undefined ? {} : { volume: filter.whole(citation.volume) }),
  }));
}

const TOOL = 'tool ';
const channelOf = (choice: number, field: string) => `${choice}\u0000${field}`;
const channelParts = (channel: string): [number, string] => {
  const [choice, field] = channel.split('\u0000');
  return [Number(choice), field];
};

/** Chat completion chunks (the chat format, and the Responses format decoded into chunks). */
export function chatChunkRedaction(secrets: ReadonlyArray<string | undefined>): AnswerRedaction<ChatCompletionChunk> {
  if (answerSecrets(secrets).length === 0) return passThrough();
  const filter = new StreamingSecretFilter(secrets);
  let last: ChatCompletionChunk | undefined;
  return {
    before: () => undefined,
    pass(chunk) {
      last = chunk;
      for (const choice of chunk.choices) {
        const { delta, index } = choice;
        // A finishing choice takes what its channels still hold: no text of it comes after.
        const ends = choice.finish_reason != null;
        for (const field of ['content', 'reasoning_content'] as const) {
          const piece = delta[field];
          const shown = typeof piece === 'string' ? filter.push(channelOf(index, field), piece) : '';
          const out = ends ? shown + filter.end(channelOf(index, field)) : shown;
          if (typeof piece === 'string' || out) delta[field] = out;
        }
        for (const call of delta.tool_calls ?? []) {
          const args = call.function?.arguments;
          if (args !== undefined) call.function!.arguments = filter.push(channelOf(index, TOOL + call.index), args);
        }
        if (ends) {
          for (const channel of filter.holding()) {
            const [choiceIndex, field] = channelParts(channel);
            if (choiceIndex !== index || !field.startsWith(TOOL)) continue;
            const rest = filter.end(channel);
            const toolIndex = Number(field.slice(TOOL.length));
            const named = delta.tool_calls?.find((call) => call.index === toolIndex);
            if (named) named.function = { ...named.function, arguments: (named.function?.arguments ?? '') + rest };
            else if (rest) (delta.tool_calls ??= []).push({ index: toolIndex, function: { arguments: rest } });
          }
        }
      }
      if (chunk.citations) chunk.citations = citationsClean(chunk.citations, filter);
      return chunk;
    },
    end() {
      const held = filter.holding();
      if (held.length === 0) return [];
      const byChoice = new Map<number, ChatCompletionChunk['choices'][number]>();
      for (const channel of held) {
        const [index, field] = channelParts(channel);
        const choice = byChoice.get(index) ?? { index, delta: {}, finish_reason: null };
        byChoice.set(index, choice);
        const rest = filter.end(channel);
        if (field === 'content' || field === 'reasoning_content') choice.delta[field] = rest;
        else (choice.delta.tool_calls ??= []).push({ index: Number(field.slice(TOOL.length)), function: { arguments: rest } });
      }
      return [{ id: last?.id ?? '', object: 'chat.completion.chunk', created: last?.created ?? 0, model: last?.model ?? '', choices: [...byChoice.values()] }];
    },
  };
}

/** Agent events: the message and its reasoning stream; citations are whole. */
export function agentEventRedaction(secrets: ReadonlyArray<string | undefined>): AnswerRedaction<AgentEvent> {
  if (answerSecrets(secrets).length === 0) return passThrough();
  const filter = new StreamingSecretFilter(secrets);
  let threadId: string | undefined;
  const flush = (): AgentEvent[] => {
    const out: AgentEvent[] = [];
    for (const kind of filter.holding() as Array<'message' | 'reasoning'>) {
      const delta = filter.end(kind);
      if (delta) out.push({ kind, threadId, delta });
    }
    return out;
  };
  return {
    before: (event) => ((event.kind === 'done' || event.kind === 'error') && filter.holding().length > 0 ? flush() : undefined),
    pass(event) {
      if ('threadId' in event && event.threadId) threadId = event.threadId;
      if (event.kind === 'message' || event.kind === 'reasoning') {
        event.delta = filter.push(event.kind, event.delta);
        // A reasoning piece wholly held back says nothing; a message event still carries its ids.
        return event.delta || event.kind === 'message' ? event : undefined;
      }
      if (event.kind === 'retrieval') event.citations = citationsClean(event.citations, filter);
      return event;
    },
    end: flush,
  };
}

/** A whole chat completion (either format) with the secrets removed. */
export function completionRedacted(completion: ChatCompletion, secrets: ReadonlyArray<string | undefined>): ChatCompletion {
  const filter = new StreamingSecretFilter(secrets);
  return {
    ...completion,
    choices: completion.choices.map((choice) => ({
      ...choice,
      message: {
        ...choice.message,
        content: filter.whole(choice.message.content),
        ...(typeof choice.message.reasoning_content === 'string' ? { reasoning_content: filter.whole(choice.message.reasoning_content) } : {}),
        ...(choice.message.tool_calls ? { tool_calls: choice.message.tool_calls.map((call) => ({ ...call, function: { ...call.function, arguments: filter.whole(call.function.arguments) } })) } : {}),
        ...(choice.message.citations ? { citations: citationsClean(choice.message.citations, filter) } : {}),
      },
    })),
  };
}

/** A whole agent answer with the secrets removed. */
export function agentMessageRedacted(message: AgentMessage, secrets: ReadonlyArray<string | undefined>): AgentMessage {
  const filter = new StreamingSecretFilter(secrets);
  return {
    ...message,
    content: filter.whole(message.content),
    reasoningContent: message.reasoningContent === null ? null : filter.whole(message.reasoningContent),
    citations: citationsClean(message.citations, filter),
  };
}
