/* File helpers of the CANN KernelLaunch samples (reduced): read an input .bin, write an output .bin. */
#ifndef DATA_UTILS_H
#define DATA_UTILS_H
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#define ERROR_LOG(fmt, args...) fprintf(stdout, "[ERROR]  " fmt "\n", ##args)
#define INFO_LOG(fmt, args...) fprintf(stdout, "[INFO]  " fmt "\n", ##args)

inline bool ReadFile(const std::string &filePath, size_t &fileSize, void *buffer, size_t bufferSize)
{
    std::ifstream file(filePath, std::ios::binary);
    if (!file.is_open()) {
        ERROR_LOG("Open file failed. path = %s", filePath.c_str());
        return false;
    }
    file.seekg(0, std::ios::end);
    size_t size = static_cast<size_t>(file.tellg());
    if (size > bufferSize) {
        ERROR_LOG("file size %zu is larger than buffer size %zu", size, bufferSize);
        return false;
    }
    file.seekg(0, std::ios::beg);
    file.read(static_cast<char *>(buffer), size);
    fileSize = size;
    return true;
}

inline bool WriteFile(const std::string &filePath, const void *buffer, size_t size)
{
    std::ofstream file(filePath, std::ios::binary | std::ios::trunc);
    if (!file.is_open()) {
        ERROR_LOG("Open file failed. path = %s", filePath.c_str());
        return false;
    }
    file.write(static_cast<const char *>(buffer), size);
    return file.good();
}
#endif  // DATA_UTILS_H
