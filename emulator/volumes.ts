// Volume names and who may touch them (D5, D6).
import { HttpError, badRequest } from './httpErrors';

const NAMED_VOLUME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PERSONAL_VOLUME = /^\{([A-Za-z0-9._@-]{1,128})\}$/;

export type VolumeRef = { kind: 'named'; name: string } | { kind: 'personal'; userId: string };

export function parseVolume(value: unknown, param = 'volume'): VolumeRef {
  if (value === undefined || value === null || value === '') throw badRequest(`${param} is required`, param);
  if (typeof value !== 'string') throw badRequest(`${param} must be a string`, param);
  const personal = PERSONAL_VOLUME.exec(value);
  if (personal) return { kind: 'personal', userId: personal[1] };
  if (NAMED_VOLUME.test(value)) return { kind: 'named', name: value };
  throw badRequest(`${param} "${value.slice(0, 140)}" is not a valid volume name (letters, digits, . _ - up to 128, or {user_id})`, param);
}

/** The canonical wire name, also the key of the volume in the store. */
export function volumeName(ref: VolumeRef): string {
  return ref.kind === 'named' ? ref.name : `{${ref.userId}}`;
}

/** Another user's personal volume is 403 (D1, D5). */
export function assertMayAccess(ref: VolumeRef, userId: string, param = 'volume'): void {
  if (ref.kind === 'personal' && ref.userId !== userId) {
    throw new HttpError(403, `volume {${ref.userId}} is another user's personal volume`, param);
  }
}

/** A folder name for the volume on disk; personal and named volumes cannot collide. */
export function volumeDirName(name: string): string {
  const personal = PERSONAL_VOLUME.exec(name);
  return personal ? `user_${personal[1]}` : `named_${name}`;
}
