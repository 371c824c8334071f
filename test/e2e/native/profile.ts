// Loaded first by test/e2e/native/.mocharc.json: every scenario of this mocha run drives
// code-server 4.139.1 (VS Code 1.139 with its built-in Chat).
import { NATIVE_PROFILE, useProfile } from '../harness/profile';

useProfile(NATIVE_PROFILE);
