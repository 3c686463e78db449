#include "local_slurm.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace trainsim::testing {

namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace

LocalSlurm::LocalSlurm(const std::string& dir) : dir_(dir) {
  try {
    start();
  } catch (const std::exception& e) {
    why_ = e.what();
  }
}

std::string LocalSlurm::shell(const std::string& command, int timeout_s, int* exit_code) const {
  const std::string out = dir_ + "/shell.out";
  const std::string line = "SLURM_CONF='" + dir_ + "/slurm.conf' timeout " + std::to_string(timeout_s) + " bash -c '" +
                           command + "' >'" + out + "' 2>&1 </dev/null";
  const int status = std::system(line.c_str());
  if (exit_code) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return slurp(out);
}

void LocalSlurm::start() {
  for (const char* p : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo"})
    if (!on_path(p)) {
      why_ = std::string(p) + " is not installed (Debian: apt-get install munge slurmctld slurmd slurm-client)";
      return;
    }
  if (::geteuid() != 0) {
    why_ = "slurmd needs root to start jobs";
    return;
  }
  fs::remove_all(dir_);
  for (const char* sub : {"state", "spool", "log", "munge"}) fs::create_directories(dir_ + "/" + sub);
  fs::permissions(dir_ + "/munge", fs::perms::owner_all, fs::perm_options::replace);
  // A fresh munge key: 1 KiB of random bytes (munged's requirement: at least 32 bytes, 0600).
  {
    std::ifstream random("/dev/urandom", std::ios::binary);
    std::string key(1024, '\0');
    random.read(key.data(), static_cast<std::streamsize>(key.size()));
    std::ofstream(dir_ + "/munge/key", std::ios::binary) << key;
    fs::permissions(dir_ + "/munge/key", fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  // Ports from the pid: two test runs at once on one machine do not collide.
  const int port = 20000 + static_cast<int>(::getpid() % 20000) * 2;
  std::ofstream conf(dir_ + "/slurm.conf");
  conf << "ClusterName=trainsimtest\nSlurmctldHost=" << host << "\nSlurmUser=root\nSlurmdUser=root\n"
       << "SlurmctldPort=" << port << "\nSlurmdPort=" << port + 1 << "\n"
       << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << dir_ << "/munge/sock\n"
       << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
       << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\n"
       << "SlurmctldLogFile=" << dir_ << "/log/slurmctld.log\nSlurmdLogFile=" << dir_ << "/log/slurmd.log\n"
       << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
       << "SelectTypeParameters=CR_CPU\nJobAcctGatherType=jobacct_gather/none\n"
       << "AccountingStorageType=accounting_storage/none\nMpiDefault=none\nReturnToService=2\n"
       << "SchedulerParameters=sched_interval=1\n"
       << "NodeName=" << host << " CPUs=" << std::thread::hardware_concurrency() << " State=UNKNOWN\n"
       << "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
  conf.close();
  const std::string d = "'" + dir_ + "'";
  int code = 0;
  shell("munged --force --socket=" + d + "/munge/sock --key-file=" + d + "/munge/key --log-file=" + d +
            "/munge/log --pid-file=" + d + "/munge/pid --seed-file=" + d + "/munge/seed",
        10, &code);
  if (code != 0) {
    why_ = "munged did not start: " + slurp(dir_ + "/munge/log");
    return;
  }
  shell("slurmctld -i -f " + d + "/slurm.conf && slurmd -f " + d + "/slurm.conf", 20, &code);
  if (code != 0) {
    why_ = "slurmctld or slurmd did not start: " + slurp(dir_ + "/log/slurmctld.log");
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (shell("sinfo -h -o %t", 5).find("idle") != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  why_ = "the Slurm node did not become idle in 20 s: " + slurp(dir_ + "/log/slurmd.log");
}

void LocalSlurm::stop_daemon(const std::string& pid_file) const {
  const std::string text = slurp(pid_file);
  const pid_t pid = static_cast<pid_t>(std::atol(text.c_str()));
  if (pid <= 1) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
}

LocalSlurm::~LocalSlurm() {
  shell("scancel --user=root", 5);
  stop_daemon(dir_ + "/slurmd.pid");
  stop_daemon(dir_ + "/slurmctld.pid");
  stop_daemon(dir_ + "/munge/pid");
}

}  // namespace trainsim::testing
