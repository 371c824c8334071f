// What the open conversation gives the service besides the question: files waiting to go
// with the next agent question, code chips, the volumes and files the agent searches, and
// the passages its answers cited (which the host may then open, since an answer showed them).
// Composed by the engine (chatEngine.ts), which owns the open conversation and saves changes.
import type { ClientLogger } from '../../api/types';
import { codeContextProblem, sameCode, type NewCodeContext } from './askAboutFile';
import { citationByMarker } from './citations';
import { newCodeContextId, type AttachedFile, type CodeContext, type ContextVolume, type StoredConversation } from './conversationModel';

export interface CitedFile {
  fileId: string;
  filename: string;
  volume?: string;
}

/** A passage an answer of the open conversation cited, by its marker number. */
export interface CitedPassage extends CitedFile {
  marker: number;
  markers: number[];
  snippet?: string;
  chunkIndex?: number;
  score?: number;
}

/** What the context needs of the engine that owns the conversations. */
export interface ConversationContextEngine {
  /** The open conversation, loaded if need be. */
  current(): Promise<StoredConversation>;
  /** The open conversation if it was loaded already (no disk access). */
  openConversation(): StoredConversation | undefined;
  /** Changes the open conversation, saves it and reports it. */
  update(change: (conversation: StoredConversation) => void): Promise<void>;
  log(): ClientLogger;
}

export class ConversationContext {
  constructor(private readonly engine: ConversationContextEngine) {}

  async removeAttachment(fileId: string): Promise<void> {
    const conversation = await this.engine.current();
    if (!conversation.pendingAttachments.some((a) => a.fileId === fileId)) {
      this.engine.log().warn(`remove of unknown attachment ${fileId}; dropped`);
      return;
    }
    await this.engine.update((c) => void (c.pendingAttachments = c.pendingAttachments.filter((a) => a.fileId !== fileId)));
  }

  /**
   * Attaches code to the next question of the open conversation (a chip above the composer);
   * the same file and lines replace the earlier chip. Resolves to a sentence for the user
   * when it would pass the size limit of one question's code, and attaches nothing then.
   */
  async attachCode(code: NewCodeContext): Promise<string | undefined> {
    const conversation = await this.engine.current();
    const pending = conversation.pendingCode ?? [];
    const problem = codeContextProblem(pending, code);
    if (problem) return problem;
    const attached: CodeContext = { id: newCodeContextId(), ...code };
    await this.engine.update((c) => void (c.pendingCode = [...pending.filter((p) => !sameCode(p, code)), attached]));
    return undefined;
  }

  async removeCode(id: string): Promise<void> {
    const conversation = await this.engine.current();
    if (!conversation.pendingCode?.some((c) => c.id === id)) {
      this.engine.log().warn(`remove of unknown code chip ${id}; dropped`);
      return;
    }
    await this.engine.update((c) => void (c.pendingCode = (c.pendingCode ?? []).filter((p) => p.id !== id)));
  }

  /** The volumes the open conversation searches in agent mode; an empty list means all (My files and the settings' volumes). */
  async setContextVolumes(volumes: ContextVolume[]): Promise<void> {
    await this.engine.update((c) => {
      if (volumes.length === 0) delete c.contextVolumes;
      else c.contextVolumes = volumes.map((v) => ({ ...v }));
    });
  }

  async removeContextVolume(volume: string): Promise<void> {
    const conversation = await this.engine.current();
    const chosen = conversation.contextVolumes ?? [];
    if (!chosen.some((v) => v.volume === volume)) {
      this.engine.log().warn(`remove of a context volume the conversation did not choose; dropped`);
      return;
    }
    await this.setContextVolumes(chosen.filter((v) => v.volume !== volume));
  }

  /** Files the open conversation searches instead of whole volumes (added to the ones chosen before); an empty list clears them. */
  async setContextFiles(files: AttachedFile[]): Promise<void> {
    await this.engine.update((c) => {
      if (files.length === 0) delete c.contextFiles;
      else c.contextFiles = files.map((f) => ({ ...f }));
    });
  }

  async removeContextFile(fileId: string): Promise<void> {
    const chosen = (await this.engine.current()).contextFiles ?? [];
    if (!chosen.some((f) => f.fileId === fileId)) {
      this.engine.log().warn(`remove of a context file the conversation did not choose; dropped`);
      return;
    }
    await this.setContextFiles(chosen.filter((f) => f.fileId !== fileId));
  }

  /**
   * The file behind a citation an answer of the open conversation showed (`volume` '' for
   * one the service gave without a volume), or undefined when no answer cited it. A citation
   * without a volume takes the volume of the same file attached to the conversation, if any;
   * else `volume` stays undefined and the caller must say it cannot be located.
   */
  citedFile(volume: string, fileId: string): CitedFile | undefined {
    const open = this.engine.openConversation();
    const turns = open?.turns ?? [];
    const citation = turns.flatMap((t) => t.citations ?? []).find((c) => c.fileId === fileId && (c.volume ?? '') === volume);
    if (!citation) return undefined;
    if (citation.volume) return { fileId, filename: citation.filename, volume: citation.volume };
    const attachments = [...turns.flatMap((t) => t.attachments ?? []), ...(open?.pendingAttachments ?? []), ...(open?.contextFiles ?? [])];
    const attached = attachments.find((a) => a.fileId === fileId && a.volume);
    return { fileId, filename: citation.filename, ...(attached ? { volume: attached.volume } : {}) };
  }

  /**
   * The passage behind marker `marker` of answer `turnId` in the open conversation, or
   * undefined when that answer has no such source (the webview is untrusted). The volume is
   * filled in from an attachment like `citedFile` does.
   */
  citedPassage(turnId: string, marker: number): CitedPassage | undefined {
    const turn = this.engine.openConversation()?.turns.find((t) => t.id === turnId && t.role === 'assistant');
    const citation = turn ? citationByMarker(turn.citations ?? [], marker) : undefined;
    if (!citation) return undefined;
    const file = this.citedFile(citation.volume ?? '', citation.fileId);
    const index = turn!.citations!.indexOf(citation);
    return {
      fileId: citation.fileId,
      filename: citation.filename,
      ...(file?.volume ? { volume: file.volume } : {}),
      marker,
      markers: citation.markers?.length ? citation.markers : [index + 1],
      ...(citation.snippet !== undefined ? { snippet: citation.snippet } : {}),
      ...(citation.chunkIndex !== undefined ? { chunkIndex: citation.chunkIndex } : {}),
      ...(citation.score !== undefined ? { score: citation.score } : {}),
    };
  }

  /** True only for a citation that an answer of the open conversation actually showed. */
  hasCitation(volume: string, fileId: string): boolean {
    return this.citedFile(volume, fileId) !== undefined;
  }
}
