// The KSM models VS Code's model picker offers (vendor `ksm`): every chat model of
// `ksm.chat.models`, plus the agent as a model of its own. The service lists no models
// (D21) and states no context sizes, so the token limits below are the one assumption
// VS Code needs to budget its prompts; they are named here once.
import * as l10n from '@vscode/l10n';

export const KSM_VENDOR = 'ksm';
/** Model ids of the agent entries start with this; the rest is the agent id. */
export const AGENT_MODEL_PREFIX = 'agent:';
export const ASSUMED_MAX_INPUT_TOKENS = 128_000;
export const ASSUMED_MAX_OUTPUT_TOKENS = 16_000;

export type KsmModelEntry =
  | { kind: 'chat'; id: string; name: string; family: string; detail: string; tooltip: string; toolCalling: true; serviceModel: string }
  | { kind: 'agent'; id: string; name: string; family: string; detail: string; tooltip: string; toolCalling: false; serviceModel: string; agentId: string };

export interface CatalogSettings {
  /** `ksm.vscodeChat.showModels`. */
  show: boolean;
  models: readonly string[];
  agentId: string;
  /** The model the agent answers with (`context.model`); no agent entry without one. */
  agentModel: string;
}

export function modelCatalog(settings: CatalogSettings): KsmModelEntry[] {
  if (!settings.show) return [];
  const entries: KsmModelEntry[] = settings.models.map((model) => ({
    kind: 'chat',
    id: model,
    name: `KSM ${model}`,
    family: model,
    detail: l10n.t('KSM chat completions'),
    tooltip: l10n.t("The KSM service's model '{0}' (/v3/chat/completions). Can call tools in agent mode.", model),
    toolCalling: true,
    serviceModel: model,
  }));
  if (settings.agentModel) {
    entries.push({
      kind: 'agent',
      id: `${AGENT_MODEL_PREFIX}${settings.agentId}`,
      name: `KSM ${settings.agentId}`,
      family: settings.agentId,
      detail: l10n.t('KSM agent over your volumes'),
      tooltip: l10n.t("The KSM agent '{0}' answering with '{1}' from your personal volume and ksm.volumes.list, keeping its own thread. No tool calling.", settings.agentId, settings.agentModel),
      toolCalling: false,
      serviceModel: settings.agentModel,
      agentId: settings.agentId,
    });
  }
  return entries;
}

/** The entry VS Code asks for by id, read against the current settings (a removed model is an error, not a guess). */
export function findModel(settings: CatalogSettings, id: string): KsmModelEntry | undefined {
  return modelCatalog({ ...settings, show: true }).find((entry) => entry.id === id);
}
