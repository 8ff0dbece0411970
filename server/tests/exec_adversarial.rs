//! Programs that tamper with what the harness relies on still get a report,
//! and the worker survives them.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::time::Duration;

fn check(pool: &WorkerPool, program: &str, status: RunStatus, hit: &[u32]) -> RunOutcome {
    let mut rq = req(program);
    rq.timeout = Duration::from_secs(5);
    let o = pool.run(&rq).unwrap();
    assert_eq!(o.status, status, "{program}: {o:?}");
    assert_eq!(o.hit, hit, "{program}: {o:?}");
    o
}

#[test]
fn tampering_programs_are_still_observed() {
    let pool = pool();
    use RunStatus::*;
    // monkeypatching modules and builtins the harness shares with the program
    check(&pool, "import json, os\njson.dumps = None\nos._exit = None\nx = 1\n", Completed, &[1, 2, 3, 4]);
    check(&pool, "import builtins\nbuiltins.sorted = None\nbuiltins.dict = None\nx = 1\n", Completed, &[1, 2, 3, 4]);
    // closing the report pipe: the report goes through a file
    check(&pool, "import os\nos.closerange(3, 5000)\nx = 1\n", Completed, &[1, 2, 3]);
    // replacing the standard streams
    check(&pool, "import sys\nsys.stdout = None\nsys.stderr = None\nx = 1\n", Completed, &[1, 2, 3, 4]);
    // deleting its own working directory
    let o = check(&pool, "import os, shutil\nshutil.rmtree(os.getcwd())\nprint('gone')\n", Completed, &[1, 2, 3]);
    assert_eq!(o.stdout, "gone\n", "output survives the removal of the run directory");
    // an exception whose __str__ raises
    let o = check(&pool, "class E(Exception):\n    def __str__(self):\n        raise RuntimeError\nraise E()\n", Raised, &[1, 2, 4]);
    assert_eq!(o.exception.unwrap().type_name, "__main__.E");
    // os.setsid() works as in a plain interpreter
    let o = check(&pool, "import os\nos.setsid()\nprint('ok')\n", Completed, &[1, 2, 3]);
    assert_eq!(o.stdout, "ok\n");
    // a thread that never ends does not keep the run alive
    check(&pool, "import threading\ndef w():\n    while True:\n        pass\nthreading.Thread(target=w).start()\nx = 1\n", Completed, &[1, 2, 3, 4, 5, 6]);
    let o = run(&pool, "print('alive')\n");
    assert_eq!(o.stdout, "alive\n");
}

#[test]
fn a_grandchild_in_its_own_session_does_not_survive() {
    assert_no_sleep_survives(
        "import os, subprocess\nif os.fork() == 0:\n    os.setsid()\n    subprocess.Popen(['sleep', '999'])\n    os._exit(0)\nos.wait()\nprint('parent done')\n",
        "parent done\n",
    );
}

#[test]
fn redirecting_the_scratch_layout_does_not_redirect_the_worker() {
    let pool = pool();
    // replace the worker's runs/ directory (in HOME) by a symlink elsewhere
    let o = run(
        &pool,
        "import os\nhome = os.path.expanduser('~')\nos.makedirs('decoy', exist_ok=True)\n\
         os.rename(os.path.join(home, 'runs'), os.path.join(home, 'old-runs'))\n\
         os.symlink('/nonexistent-target', os.path.join(home, 'runs'))\nprint('done')\n",
    );
    assert_eq!(o.stdout, "done\n", "{o:?}");
    let o = run(&pool, "import os\nprint(os.path.realpath(os.getcwd()).startswith(os.path.realpath(os.path.expanduser('~'))))\n");
    assert_eq!(o.stdout, "True\n", "{o:?}");
}
