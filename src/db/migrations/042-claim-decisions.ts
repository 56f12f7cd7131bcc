import type { Knex } from 'knex';

/**
 * The site team decides claims (staff_decide_claim): approved claims are `verified` as by a proof,
 * rejected ones get their own status; both keep the decision, its reason (the claimant reads it)
 * and who made it. Each check of a claim is already its own `claim_checks` row; a staff approval
 * is one too, with the trigger `staff`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('claims', (t) => {
    t.text('decision').comment('approved | rejected: decided by the site team; null: by the checks or time');
    t.text('decision_reason').comment('Shown to the claimant on their claim page and mailed to them');
    t.integer('decided_by').references('users.id').onDelete('SET NULL');
    t.timestamp('decided_at', { useTz: true });
  });
  await db.raw(`ALTER TABLE claims DROP CONSTRAINT claims_status`);
  await db.raw(
    `ALTER TABLE claims ADD CONSTRAINT claims_status CHECK (status IN ('pending', 'verified', 'expired', 'canceled', 'rejected'))`,
  );
  await db.raw(`ALTER TABLE claims ADD CONSTRAINT claims_decision CHECK (decision IN ('approved', 'rejected'))`);
  await db.raw(
    `ALTER TABLE claims ADD CONSTRAINT claims_decision_reason CHECK ((decision IS NULL) = (decision_reason IS NULL) AND (decision IS NULL) = (decided_at IS NULL))`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`ALTER TABLE claims DROP CONSTRAINT claims_decision_reason`);
  await db.raw(`ALTER TABLE claims DROP CONSTRAINT claims_decision`);
  await db('claims').where({ status: 'rejected' }).update({ status: 'canceled' });
  await db.raw(`ALTER TABLE claims DROP CONSTRAINT claims_status`);
  await db.raw(`ALTER TABLE claims ADD CONSTRAINT claims_status CHECK (status IN ('pending', 'verified', 'expired', 'canceled'))`);
  await db.schema.alterTable('claims', (t) => {
    t.dropColumn('decided_at');
    t.dropColumn('decided_by');
    t.dropColumn('decision_reason');
    t.dropColumn('decision');
  });
}
