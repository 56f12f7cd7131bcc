import { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { badRequest, conflict, notFound } from '../errors/errors.ts';

const Email = z.email().max(254);

export interface User {
  id: number;
  email: string;
}

/** Creates a user; the email is unique regardless of case. */
export async function createUser(db: Db, email: string): Promise<User> {
  if (!Email.safeParse(email).success) throw badRequest('invalid_email', `"${email}" is not an email address.`);
  const [row] = await db('users').insert({ email }).onConflict('email').ignore().returning(['id', 'email']);
  if (!row) throw conflict('email_taken', `A user with the email ${email} already exists.`);
  return row;
}

export async function userByEmail(db: Db, email: string): Promise<User> {
  const row = await db('users').where({ email }).first('id', 'email');
  if (!row) throw notFound(`User ${email}`);
  return row;
}
