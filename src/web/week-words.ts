/** Weeks and days as people read them; the one formatter lives beside the calendar in the domain. */
export { dayText, durationText, weekDates, weekOfText, weeksText, weekText } from '../operations/read-models/launches.ts';
