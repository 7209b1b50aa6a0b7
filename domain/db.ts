import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../prisma/generated/client';

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** One pool per process, shared by Prisma and the few raw-SQL users (rate limits, LISTEN). */
export function createDb(databaseUrl: string, poolSize = 10): { prisma: PrismaClient; pool: Pool } {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { prisma, pool };
}
