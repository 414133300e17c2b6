/* datadir: where the programs find the project's data (the scenarios, the Lua
 * helpers, the quiz) whether they run from the build tree or from an install.
 *
 * An installed program lives in PREFIX/bin and its data in
 * PREFIX/share/wrk-sagemaker; a program run from the build tree uses the
 * source tree it was built from. */
#ifndef SM_DATADIR_H
#define SM_DATADIR_H

/* The malloc'ed path of rel (e.g. "scenarios") under the data folder: the
 * install's, found beside the running executable, when it holds rel, else the
 * source tree's (source_dir, compiled in by the caller). NULL when out of memory. */
char *datadir_path(const char *source_dir, const char *rel);

#endif
