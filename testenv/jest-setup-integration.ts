// Integration tests talk to a real API server: give each test two minutes (the project-level testTimeout
// is ignored by jest 30 for projects).
import { jest } from '@jest/globals';

jest.setTimeout(120_000);
